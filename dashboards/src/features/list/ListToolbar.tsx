import { DeleteOutlined, DownloadOutlined, PlusOutlined, UploadOutlined } from '@ant-design/icons';
import { App, Button, Space } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { QueryValue } from '../../api/client';
import { deleteAll, exportList, saveFile, type ExportFormat } from './api';

interface Props {
  entity: string;
  can: (action: string) => boolean;
  selected: unknown[];
  /** Export: the list's query parameters and body (every page of the current filters). */
  params: Record<string, QueryValue>;
  body: Record<string, unknown>;
  onCreate: () => void;
  onImport: () => void;
  onDeleted: () => void;
  extra?: ReactNode;
}

/** Create, bulk delete, import and export, each behind its action; then the screen's own buttons. */
export default function ListToolbar({ entity, can, selected, params, body, onCreate, onImport, onDeleted, extra }: Props) {
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

  const exportAs = async (format: ExportFormat) => {
    const file = await exportList(entity, format, params, body);
    if (file) saveFile(file.blob, file.fileName);
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
          <Button icon={<DownloadOutlined />} onClick={() => void exportAs('xlsx')} data-testid="list-export-xlsx">{t('export.xlsx')}</Button>
          <Button icon={<DownloadOutlined />} onClick={() => void exportAs('csv')} data-testid="list-export-csv">{t('export.csv')}</Button>
        </>
      )}
      {extra}
    </Space>
  );
}
