import { PlusSquareOutlined, ReloadOutlined } from '@ant-design/icons';
import { Alert, App, Button, Card, Descriptions, Popconfirm, Space, Spin, Table, Tag } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAccess } from '../../auth/access';
import { createPartitionsNow, fetchDatabaseReport, type DatabaseReport, type GpsPartition } from '../../features/platform/api';
import { formatBytes } from '../../features/systemMonitor/model';

/** Settings "db": the database's health for the platform administrator (root enterprise):
 * version, partitioning, size, connections, biggest tables, the gps partitions and what the retention
 * setting would drop. Read only, but for creating today's and tomorrow's partitions now. */
export default function DatabaseScreen() {
  const { t } = useTranslation('settings');
  const { message } = App.useApp();
  const canCreate = useAccess().can('db', 'add');
  const [report, setReport] = useState<DatabaseReport | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback((signal?: AbortSignal) => {
    void fetchDatabaseReport(signal).then((reply) => {
      if (signal?.aborted) return;
      if (reply.code === 0 && reply.data) setReport(reply.data);
      else setFailed(reply.message);
    });
  }, []);
  useEffect(() => {
    const controller = new AbortController();
    load(controller.signal);
    return () => controller.abort();
  }, [load]);

  const createNow = async () => {
    setBusy(true);
    const reply = await createPartitionsNow();
    setBusy(false);
    if (reply.code === 0 && reply.data) {
      const created = reply.data.created;
      void message.success(created.length ? t('db.created', { names: created.join(', ') }) : t('db.noneCreated'));
      load();
    }
  };

  if (!report) return failed ? <Alert type="error" showIcon title={failed} data-testid="db-error" /> : <Spin style={{ display: 'block', margin: 48 }} />;
  const { retention } = report;
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }} data-testid="db-screen">
      <Card title={t('db.title')} size="small" extra={<Button icon={<ReloadOutlined />} onClick={() => load()}>{t('system.refresh')}</Button>}>
        <Descriptions size="small" bordered column={{ xs: 1, md: 2 }} items={[
          { key: 'version', label: t('db.version'), children: <span data-testid="db-version">PostgreSQL {report.version}</span> },
          { key: 'partitioning', label: t('db.partitioning'), children: <span data-testid="db-partitioning">{t(`db.partitioningKinds.${report.partitioning}`)}{report.timescaledb ? ` (TimescaleDB ${report.timescaledb})` : ''}</span> },
          { key: 'name', label: t('db.name'), children: report.name },
          { key: 'size', label: t('db.size'), children: <span data-testid="db-size">{formatBytes(report.sizeBytes)}</span> },
          { key: 'connections', label: t('db.connections'), children: <span data-testid="db-connections">{report.connections} / {report.maxConnections}</span> },
          { key: 'databaseConnections', label: t('db.databaseConnections'), children: report.databaseConnections },
        ]} />
      </Card>
      <Card title={t('db.partitions')} size="small" data-testid="db-partitions"
        extra={canCreate && (
          <Popconfirm title={t('db.createConfirm')} onConfirm={() => void createNow()}>
            <Button icon={<PlusSquareOutlined />} loading={busy} data-testid="db-create-partitions">{t('db.createNow')}</Button>
          </Popconfirm>
        )}>
        <Alert style={{ marginBottom: 12 }} type={retention.expiredPartitions ? 'warning' : 'info'} showIcon data-testid="db-retention"
          title={retention.days
            ? t('db.retention', { days: retention.days, cutoff: retention.cutoff ?? '', count: retention.expiredPartitions, size: formatBytes(retention.expiredBytes), rows: retention.expiredRows })
            : t('db.retentionOff')} />
        <Table<GpsPartition> size="small" rowKey="name" dataSource={report.partitions} pagination={{ pageSize: 10, hideOnSinglePage: true }}
          locale={{ emptyText: t('db.noPartitions') }} columns={[
            { key: 'name', dataIndex: 'name', title: t('db.partition') },
            { key: 'day', dataIndex: 'day', title: t('db.day'), render: (day: string | null) => day ?? t('db.defaultPartition') },
            { key: 'sizeBytes', dataIndex: 'sizeBytes', title: t('db.size'), render: (value: number) => formatBytes(value) },
            { key: 'estimatedRows', dataIndex: 'estimatedRows', title: t('system.estimatedRows') },
            { key: 'expired', dataIndex: 'expired', title: t('db.state'), render: (expired: boolean) => (expired ? <Tag color="orange">{t('db.expired')}</Tag> : <Tag color="green">{t('db.kept')}</Tag>) },
          ]} />
      </Card>
      <Card title={t('system.tables')} size="small" data-testid="db-tables">
        <Table size="small" pagination={false} rowKey="name" dataSource={report.tables} columns={[
          { key: 'name', dataIndex: 'name', title: t('system.table') },
          { key: 'sizeBytes', dataIndex: 'sizeBytes', title: t('db.size'), render: (value: number) => formatBytes(value) },
          { key: 'estimatedRows', dataIndex: 'estimatedRows', title: t('system.estimatedRows') },
        ]} />
      </Card>
    </Space>
  );
}
