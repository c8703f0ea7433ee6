import { DownloadOutlined, InboxOutlined } from '@ant-design/icons';
import { Alert, Button, Modal, Progress, Space, Table, Upload } from 'antd';
import { useEffect, useMemo, useReducer, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { saveFile, shownMessage, type ImportRowError } from './api';
import { entityImporter, IDLE, importPercent, importReducer, type ImportJob, type Importer } from './importJob';

interface Props {
  entity: string;
  open: boolean;
  onClose: () => void;
  /** Called once a job finished having created rows (the list reloads). */
  onImported: () => void;
  /** An import other than the entity's generic one (its own route and template). */
  importer?: Importer;
  /** The dialog's title (default: the list's "Import"). */
  title?: string;
  testId?: string;
}

/** Template, upload of an XLSX or CSV file, a progress bar while the job runs, then the refused rows. */
export default function ImportDialog({ entity, open, onClose, onImported, importer, title, testId = 'import-dialog' }: Props) {
  const { t } = useTranslation('list');
  const [job, dispatch] = useReducer(importReducer, IDLE);
  const controller = useRef<AbortController | null>(null);
  const runner = useMemo(() => importer ?? entityImporter(entity), [importer, entity]);

  useEffect(() => () => controller.current?.abort(), []);
  // Once per finished job: a parent that hands a new onImported on every render (its reload re-renders it)
  // must not reload again and again.
  const reported = useRef<ImportJob | null>(null);
  useEffect(() => {
    if (job.phase === 'done' && job.created > 0 && reported.current !== job) {
      reported.current = job;
      onImported();
    }
  }, [job, onImported]);

  const start = (file: File) => {
    controller.current?.abort();
    controller.current = new AbortController();
    void runner.run(file, dispatch, { signal: controller.current.signal });
    return false; // we upload ourselves
  };
  const close = () => {
    controller.current?.abort();
    dispatch({ type: 'reset' });
    onClose();
  };
  const template = async () => {
    const file = await runner.template();
    if (file) saveFile(file.blob, file.fileName);
  };

  const busy = job.phase === 'uploading' || job.phase === 'running';
  const errors: ImportRowError[] = 'errors' in job ? job.errors : [];
  return (
    <Modal open={open} title={title ?? t('import.title')} onCancel={close} footer={<Button onClick={close}>{t('import.close')}</Button>}
      width={720} destroyOnHidden data-testid={testId}>
      <Space orientation="vertical" style={{ width: '100%' }}>
        <Button icon={<DownloadOutlined />} onClick={() => void template()} data-testid="import-template">
          {t('import.template')}
        </Button>
        <Upload.Dragger accept=".xlsx,.csv" maxCount={1} showUploadList={false} disabled={busy} beforeUpload={start}
          data-testid="import-upload">
          <p className="ant-upload-drag-icon"><InboxOutlined /></p>
          <p>{t('import.drop')}</p>
        </Upload.Dragger>
        {job.phase !== 'idle' && (
          <Progress percent={importPercent(job)} status={job.phase === 'failed' ? 'exception' : busy ? 'active' : 'success'}
            data-testid="import-progress" />
        )}
        {(job.phase === 'running' || job.phase === 'done') && (
          <div data-testid="import-summary">
            {t('import.summary', { processed: job.processed, total: job.total, created: job.created, failed: job.failed })}
          </div>
        )}
        {job.phase === 'failed' && job.message && <Alert type="error" title={job.message} data-testid="import-failed" />}
        {errors.length > 0 && (
          <Table<ImportRowError>
            size="small"
            rowKey={(e) => `${e.row}-${e.field ?? ''}-${e.message}`}
            dataSource={errors}
            pagination={{ pageSize: 10, hideOnSinglePage: true }}
            columns={[
              { title: t('import.row'), dataIndex: 'row', width: 80 },
              { title: t('import.field'), dataIndex: 'field', width: 140 },
              { title: t('import.reason'), dataIndex: 'message', render: (_: string, e: ImportRowError) => shownMessage(e) },
            ]}
            data-testid="import-errors"
          />
        )}
      </Space>
    </Modal>
  );
}
