import { DeleteOutlined, DownloadOutlined, PlusOutlined, UploadOutlined } from '@ant-design/icons';
import { App, Button, Progress, Space, Typography } from 'antd';
import { useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { deleteAll, type ExportFormat } from './api';
import { progressPercent, type ExportProgress, type Exporter } from './exporter';

interface Props {
  entity: string;
  can: (action: string) => boolean;
  selected: unknown[];
  /** Export of every page of the current filters (the server's file, or one written here). */
  exporter: Exporter;
  onCreate: () => void;
  onImport: () => void;
  onDeleted: () => void;
  extra?: ReactNode;
}

/** Create, bulk delete, import and export, each behind its action; then the screen's own buttons. */
/** The size of what an export has received so far, for the progress line. */
function doneText(t: (key: string, options?: Record<string, unknown>) => string, p: ExportProgress): string {
  if (p.unit === 'rows') return t('export.rows', { done: p.done, total: p.total ?? '?' });
  return t('export.bytes', { size: (p.done / 1024 / 1024).toFixed(1) });
}

export default function ListToolbar({ entity, can, selected, exporter, onCreate, onImport, onDeleted, extra }: Props) {
  const { t } = useTranslation('list');
  const { modal, message, notification } = App.useApp();

  const bulkDelete = () =>
    modal.confirm({
      title: t('bulkDelete.confirm', { count: selected.length }),
      okButtonProps: { danger: true, 'data-testid': 'bulk-delete-ok' },
      onOk: async () => {
        const failures = await deleteAll(entity, selected);
        const deleted = selected.length - failures.length;
        if (deleted > 0) void message.success(t('bulkDelete.done', { count: deleted }));
        if (failures.length > 0) {
          notification.error({
            title: t('bulkDelete.failed', { count: failures.length }),
            description: failures.map((f) => `${String(f.id)}: ${f.message}`).join('\n'),
          });
        }
        onDeleted();
      },
    });

  const [progress, setProgress] = useState<(ExportProgress & { format: ExportFormat }) | null>(null);
  const running = useRef<AbortController | null>(null);
  const exportAs = async (format: ExportFormat) => {
    if (running.current) return;
    const controller = new AbortController();
    running.current = controller;
    setProgress({ format, done: 0, total: null, unit: 'bytes' });
    try {
      const saved = await exporter(format, (p) => setProgress({ ...p, format }), controller.signal);
      if (saved) void message.success(t('export.done'));
    } finally {
      running.current = null;
      setProgress(null);
    }
  };

  return (
    <Space wrap style={{ marginBottom: 16 }} data-testid="list-toolbar">
      {can('add') && (
        <Button type="primary" icon={<PlusOutlined />} onClick={onCreate} data-testid="list-create">{t('create')}</Button>
      )}
      {can('delete') && (
        <Button danger icon={<DeleteOutlined />} disabled={selected.length === 0} onClick={bulkDelete} data-testid="list-bulk-delete">
          {t('bulkDelete.button', { count: selected.length })}
        </Button>
      )}
      {can('import') && (
        <Button icon={<UploadOutlined />} onClick={onImport} data-testid="list-import">{t('import.button')}</Button>
      )}
      {can('export') && (
        <>
          <Button icon={<DownloadOutlined />} onClick={() => void exportAs('xlsx')} loading={progress?.format === 'xlsx'}
            disabled={progress !== null && progress.format !== 'xlsx'} data-testid="list-export-xlsx">{t('export.xlsx')}</Button>
          <Button icon={<DownloadOutlined />} onClick={() => void exportAs('csv')} loading={progress?.format === 'csv'}
            disabled={progress !== null && progress.format !== 'csv'} data-testid="list-export-csv">{t('export.csv')}</Button>
        </>
      )}
      {progress && (
        <Space data-testid="list-export-progress" data-entity={entity}>
          <Progress type="line" size="small" style={{ width: 160, margin: 0 }} percent={progressPercent(progress) ?? 100}
            status="active" showInfo={progressPercent(progress) !== null} />
          <Typography.Text type="secondary">{doneText(t, progress)}</Typography.Text>
          <Button size="small" onClick={() => running.current?.abort()} data-testid="list-export-cancel">{t('export.cancel')}</Button>
        </Space>
      )}
      {extra}
    </Space>
  );
}
