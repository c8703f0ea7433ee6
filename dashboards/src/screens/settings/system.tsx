import { ReloadOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Col, Descriptions, Row, Space, Spin, Statistic, Table } from 'antd';
import dayjs from 'dayjs';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { formatBytes, REFRESH_MS, type KafkaGroupRow } from '../../features/systemMonitor/model';
import { useSystemMonitor } from '../../features/systemMonitor/useSystemMonitor';

const time = (value: string | null | undefined) => (value ? dayjs(value).format('YYYY-MM-DD HH:mm:ss') : '-');

/** A card whose service may not have been readable: then it says so instead of its content. */
function SectionCard({ title, section, testId, children }: { title: string; section: { available: boolean; restricted?: boolean; error?: string }; testId: string; children: ReactNode }) {
  const { t } = useTranslation('settings');
  const closed = section.restricted
    ? <Alert type="info" showIcon title={t('system.restricted')} data-testid={`${testId}-restricted`} />
    : <Alert type="warning" showIcon title={t('system.unavailable', { error: section.error ?? '' })} data-testid={`${testId}-unavailable`} />;
  return (
    <Card title={title} size="small" data-testid={testId}>
      {section.available ? children : closed}
    </Card>
  );
}

/** Platform-spec §2 settings "system": a server monitor of every component `fleet up` runs. */
export default function SystemMonitorScreen() {
  const { t } = useTranslation('settings');
  const { snapshot, loading, refresh } = useSystemMonitor();
  if (!snapshot) return <Spin style={{ display: 'block', margin: 48 }} />;
  const { gateway, kafka, database, throughput } = snapshot;
  const groupColumns = (['group', 'topic', 'partitions', 'committedOffset', 'endOffset', 'lag'] as const).map((key) => ({ key, dataIndex: key, title: t(`system.${key}`) }));

  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }} data-testid="system-monitor">
      <Space>
        <span>{t('system.updatedAt', { time: time(snapshot.at) })}</span>
        <span>{t('system.refreshEvery', { seconds: REFRESH_MS / 1000 })}</span>
        <Button icon={<ReloadOutlined />} loading={loading} onClick={refresh}>{t('system.refresh')}</Button>
      </Space>
      <Row gutter={[16, 16]}>
        <Col xs={24} md={8}>
          <SectionCard title={t('system.gateway')} section={gateway} testId="monitor-gateway">
            <Space size="large">
              <Statistic title={t('system.online')} value={gateway.online ?? 0} />
              <Statistic title={t('system.registered')} value={gateway.registered ?? 0} />
            </Space>
            <p>{t('system.lastOnlineTime')}: {time(gateway.lastOnlineTime)}</p>
          </SectionCard>
        </Col>
        <Col xs={24} md={8}>
          <SectionCard title={t('system.throughput')} section={throughput} testId="monitor-throughput">
            <Statistic title={t('system.positionsPerMinute')} value={throughput.positionsPerMinute ?? 0} />
            <p>{t('system.lastReceivedAt')}: {time(throughput.lastReceivedAt)}</p>
          </SectionCard>
        </Col>
        <Col xs={24} md={8}>
          <SectionCard title={t('system.database')} section={database} testId="monitor-database">
            <Statistic title={t('system.size')} value={formatBytes(database.sizeBytes)} valueRender={(node) => <span data-testid="monitor-database-size">{node}</span>} />
            <Descriptions size="small" column={1} items={[
              { key: 'name', label: t('system.databaseName'), children: database.name },
              { key: 'connections', label: t('system.connections'), children: database.connections },
              { key: 'version', label: t('system.version'), children: database.version },
            ]} />
          </SectionCard>
        </Col>
      </Row>
      <SectionCard title={t('system.kafka')} section={kafka} testId="monitor-kafka">
        <Table<KafkaGroupRow> size="small" pagination={false} rowKey={(row) => `${row.group}/${row.topic ?? ''}`} columns={groupColumns}
          dataSource={kafka.groups ?? []} locale={{ emptyText: t('system.noGroups') }} data-testid="monitor-kafka-groups" />
        <h4 style={{ marginTop: 16 }}>{t('system.topics')}</h4>
        <Table size="small" pagination={false} rowKey="topic" dataSource={kafka.topics ?? []} columns={[
          { key: 'topic', dataIndex: 'topic', title: t('system.topic') },
          { key: 'partitions', dataIndex: 'partitions', title: t('system.partitions') },
          { key: 'endOffset', dataIndex: 'endOffset', title: t('system.endOffset') },
        ]} />
      </SectionCard>
      <SectionCard title={t('system.tables')} section={database} testId="monitor-tables">
        <Table size="small" pagination={false} rowKey="name" dataSource={database.tables ?? []} columns={[
          { key: 'name', dataIndex: 'name', title: t('system.table') },
          { key: 'sizeBytes', dataIndex: 'sizeBytes', title: t('system.size'), render: (value: number) => formatBytes(value) },
          { key: 'estimatedRows', dataIndex: 'estimatedRows', title: t('system.estimatedRows') },
        ]} />
      </SectionCard>
    </Space>
  );
}
