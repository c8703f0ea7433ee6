/**
 * The vehicles bound to a fence (platform-spec §2 settings "fence": bind vehicles): bind more from the
 * enterprise tree, unbind the selected, and for a terminal fence (business type 2) each vehicle's sync state
 * (pending, sent, acknowledged, failed with the terminal's result), refreshed every 5 s while open; and the
 * binding import (a sheet of fence name and plate number rows), after which both are read again.
 */
import { UploadOutlined } from '@ant-design/icons';
import { App, Button, Drawer, Popconfirm, Space, Table, Tag, TreeSelect } from 'antd';
import dayjs from 'dayjs';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import Access from '../../auth/Access';
import ImportDialog from '../list/ImportDialog';
import type { ListRecord } from '../list/types';
import { useEnterpriseTree } from '../org/enterprises';
import { bindVehicles, queryAll, unbindVehicles } from './api';
import { boundRows, pickedCarIds, pickerTree, type BoundRow } from './binding';
import { bindingImporter } from './bindingImport';

const REFRESH_MS = 5000;
const TERMINAL = 2;
const STATE_COLOURS: Record<string, string> = { pending: 'default', sent: 'processing', acknowledged: 'success', failed: 'error' };

export default function BindingDrawer({ fence, onClose, onChanged }: { fence: ListRecord | null; onClose: () => void; onChanged: () => void }) {
  const { t } = useTranslation('fence');
  return (
    <Drawer open={fence !== null} onClose={onClose} destroyOnHidden size={760} data-testid="binding-drawer"
      title={t('binding.title', { name: String(fence?.name ?? '') })}>
      {fence && <Bindings fence={fence} onChanged={onChanged} />}
    </Drawer>
  );
}

function Bindings({ fence, onChanged }: { fence: ListRecord; onChanged: () => void }) {
  const { t, i18n } = useTranslation(['fence', 'common']);
  const { message } = App.useApp();
  const fenceId = Number(fence.id);
  const terminal = Number(fence.businessType) === TERMINAL;
  const [rows, setRows] = useState<BoundRow[]>([]);
  const [cars, setCars] = useState<ListRecord[]>([]);
  const [picked, setPicked] = useState<string[]>([]);
  const [selected, setSelected] = useState<number[]>([]);
  const [busy, setBusy] = useState(false);
  const [importing, setImporting] = useState(false);
  const enterprises = useEnterpriseTree();
  const importer = useMemo(() => bindingImporter(i18n.language, String(fence.name ?? '')), [i18n.language, fence.name]);

  const fetchRows = useCallback(async (signal?: AbortSignal) => {
    const bindings = await queryAll('fenceBinding', { 'fenceId.eq': fenceId }, signal);
    const syncs = terminal ? await queryAll('fenceSync', { 'fenceId.eq': fenceId }, signal) : [];
    return boundRows(bindings, syncs);
  }, [fenceId, terminal]);

  useEffect(() => {
    const controller = new AbortController();
    const refresh = () => void fetchRows(controller.signal).then((found) => {
      if (!controller.signal.aborted) setRows(found);
    });
    refresh();
    void queryAll('car', {}, controller.signal).then((found) => setCars(found));
    const timer = terminal ? window.setInterval(refresh, REFRESH_MS) : undefined;
    return () => {
      controller.abort();
      window.clearInterval(timer);
    };
  }, [fetchRows, terminal]);

  const bound = useMemo(() => new Set(rows.map((r) => r.carId)), [rows]);
  const tree = useMemo(() => pickerTree(enterprises, cars, bound), [enterprises, cars, bound]);

  const change = async (run: () => Promise<{ code: number }>, done: string) => {
    setBusy(true);
    const reply = await run();
    setBusy(false);
    if (reply.code !== 0) return; // the one failure handler has said why
    void message.success(done);
    setPicked([]);
    setSelected([]);
    setRows(await fetchRows());
    onChanged();
  };
  const bind = () => {
    const carIds = pickedCarIds(picked);
    if (carIds.length) void change(() => bindVehicles(fenceId, carIds), t('binding.bound', { count: carIds.length }));
  };
  const unbind = () => void change(() => unbindVehicles(fenceId, selected), t('binding.unbound', { count: selected.length }));
  const imported = useCallback(() => {
    void fetchRows().then(setRows);
    onChanged();
  }, [fetchRows, onChanged]);

  return (
    <>
      {!terminal && <p data-testid="binding-platform-note">{t('binding.platformNote')}</p>}
      <Access code="fence" action="fence">
        <Space style={{ marginBottom: 12, width: '100%' }} wrap>
          <TreeSelect data-testid="binding-picker" treeData={tree} value={picked} onChange={(v: string[]) => setPicked(v)}
            treeCheckable showCheckedStrategy={TreeSelect.SHOW_CHILD} showSearch treeNodeFilterProp="title"
            placeholder={t('binding.pick')} style={{ width: 420 }} maxTagCount={5} />
          <Button type="primary" data-testid="binding-add" disabled={!picked.length} loading={busy} onClick={bind}>{t('binding.add')}</Button>
          <Popconfirm title={t('binding.removeConfirm', { count: selected.length })} onConfirm={unbind}
            okButtonProps={{ 'data-testid': 'binding-remove-ok' } as Record<string, string>}>
            <Button danger data-testid="binding-remove" disabled={!selected.length}>{t('binding.remove')}</Button>
          </Popconfirm>
        </Space>
      </Access>
      <Access code="fence" action="import">
        <Button icon={<UploadOutlined />} data-testid="binding-import" onClick={() => setImporting(true)} style={{ marginBottom: 12 }}>
          {t('binding.import')}
        </Button>
        <ImportDialog entity="fenceBinding" importer={importer} title={t('binding.importTitle')} testId="binding-import-dialog"
          open={importing} onClose={() => setImporting(false)} onImported={imported} />
      </Access>
      <Table<BoundRow> size="small" rowKey="carId" dataSource={rows} data-testid="binding-table" pagination={{ pageSize: 20 }}
        rowSelection={{ selectedRowKeys: selected, onChange: (keys) => setSelected(keys.map(Number)) }}
        onRow={(row) => ({ 'data-testid': `binding-row-${row.carId}` } as object)}
        columns={[
          { key: 'plate', title: t('binding.plateNumber'), dataIndex: 'plateNumber' },
          { key: 'at', title: t('binding.bindTime'), render: (_v, row) => (row.createdAt ? dayjs(row.createdAt).format('YYYY-MM-DD HH:mm:ss') : '') },
          ...(terminal ? [
            {
              key: 'state', title: t('binding.syncState'),
              render: (_v: unknown, row: BoundRow) => (
                <Tag data-testid={`binding-sync-${row.carId}`} data-state={row.syncState ?? 'none'} color={STATE_COLOURS[row.syncState ?? ''] ?? 'default'}>
                  {t(`fence.enums.syncState.${row.syncState ?? 'pending'}`)}
                </Tag>
              ),
            },
            {
              key: 'result', title: t('binding.result'),
              render: (_v: unknown, row: BoundRow) => (row.result !== null ? t(`binding.results.${row.result}`, { defaultValue: String(row.result) }) : (row.error ?? '')),
            },
            { key: 'since', title: t('binding.syncUpdated'), render: (_v: unknown, row: BoundRow) => (row.syncUpdatedAt ? dayjs(row.syncUpdatedAt).format('MM-DD HH:mm:ss') : '') },
          ] : []),
        ]} />
    </>
  );
}
