import { App, Button, Card, InputNumber, Select, Space, Spin, Table, Tooltip } from 'antd';
import dayjs from 'dayjs';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAccess } from '../../auth/access';
import { fetchPlatformParams, updatePlatformParam, type PlatformParam } from '../../features/platform/api';

type Draft = Record<string, number | string | null>;

function shown(param: PlatformParam, value: number | string, t: (key: string) => string): string {
  return param.type === 'choice' ? t(`param.options.${String(value)}`) : String(value);
}

/** The editor of one parameter: a number within its range or one of its options (the server checks both). */
function Editor({ param, draft, onChange }: { param: PlatformParam; draft: number | string | null; onChange: (value: number | string | null) => void }) {
  const { t } = useTranslation('settings');
  if (param.type === 'choice') {
    return (
      <Select data-testid={`param-input-${param.name}`} style={{ minWidth: 140 }} value={draft ?? undefined} onChange={onChange}
        options={(param.options ?? []).map((option) => ({ value: option, label: t(`param.options.${option}`) }))} />
    );
  }
  return (
    <InputNumber data-testid={`param-input-${param.name}`} value={draft as number | null} onChange={onChange}
      min={param.min ?? undefined} max={param.max ?? undefined} precision={param.type === 'int' ? 0 : undefined}
      step={param.type === 'int' ? 1 : 0.01} style={{ width: 140 }} />
  );
}

/** Platform-spec §2 settings "param": the platform parameters an administrator may change at run time, with their
 * current values (api/platform_params.py); a change applies from the next request, without a restart. */
export default function PlatformParamScreen() {
  const { t } = useTranslation('settings');
  const { message } = App.useApp();
  const canEdit = useAccess().can('system', 'update');
  const [rows, setRows] = useState<PlatformParam[] | null>(null);
  const [draft, setDraft] = useState<Draft>({});
  const [saving, setSaving] = useState<string | null>(null);

  const load = useCallback((signal?: AbortSignal) => {
    void fetchPlatformParams(signal).then((reply) => {
      if (signal?.aborted || reply.code !== 0 || !reply.data) return;
      setRows(reply.data);
      setDraft(Object.fromEntries(reply.data.map((row) => [row.name, row.value])));
    });
  }, []);
  useEffect(() => {
    const controller = new AbortController();
    load(controller.signal);
    return () => controller.abort();
  }, [load]);

  const save = async (name: string, value: number | string | null) => {
    setSaving(name);
    const reply = await updatePlatformParam(name, value);
    setSaving(null);
    if (reply.code === 0 && reply.data) {
      const saved = reply.data;
      setRows((current) => (current ?? []).map((row) => (row.name === saved.name ? saved : row)));
      setDraft((current) => ({ ...current, [saved.name]: saved.value }));
      void message.success(t('param.saved'));
    }
  };

  if (!rows) return <Spin style={{ display: 'block', margin: 48 }} />;
  return (
    <Card title={t('param.title')} size="small" data-testid="param-screen">
      <p>{t('param.hint')}</p>
      <Table<PlatformParam> size="small" rowKey="name" dataSource={rows} pagination={false} columns={[
        // its help wraps at this width (the table is otherwise as wide as its texts and scrolls sideways)
        { key: 'label', title: t('param.name'), width: 320, render: (_, row) => (
          <Space orientation="vertical" size={0}>
            <strong>{t(`param.items.${row.name}.label`)}</strong>
            <span style={{ color: '#888' }}>{t(`param.items.${row.name}.description`)}</span>
          </Space>
        ) },
        { key: 'value', title: t('param.value'), render: (_, row) => <span data-testid={`param-value-${row.name}`}>{shown(row, row.value, t)}</span> },
        { key: 'default', title: t('param.default'), render: (_, row) => shown(row, row.default, t) },
        { key: 'unit', title: t('param.unit'), render: (_, row) => (row.unit ? t(`param.units.${row.unit}`) : '-') },
        { key: 'range', title: t('param.range'), render: (_, row) => (row.min !== null && row.max !== null ? `${row.min} ~ ${row.max}` : '-') },
        { key: 'updated', title: t('param.updated'), render: (_, row) => (row.updatedBy
          ? <span data-testid={`param-updated-${row.name}`}>{row.updatedBy} {dayjs(row.updatedAt).format('YYYY-MM-DD HH:mm:ss')}</span>
          : t('param.notChanged')) },
        ...(canEdit ? [{ key: 'edit', title: t('param.edit'), render: (_: unknown, row: PlatformParam) => (
          <Space>
            <Editor param={row} draft={draft[row.name] ?? null} onChange={(value) => setDraft((current) => ({ ...current, [row.name]: value }))} />
            <Button type="primary" size="small" data-testid={`param-save-${row.name}`} loading={saving === row.name}
              disabled={draft[row.name] === null || draft[row.name] === undefined || draft[row.name] === row.value}
              onClick={() => void save(row.name, draft[row.name] ?? null)}>{t('param.save')}</Button>
            {row.updatedBy && (
              <Tooltip title={t('param.resetHint')}>
                <Button size="small" data-testid={`param-reset-${row.name}`} onClick={() => void save(row.name, null)}>{t('param.reset')}</Button>
              </Tooltip>
            )}
          </Space>
        ) }] : []),
      ]} />
    </Card>
  );
}
