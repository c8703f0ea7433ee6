import { Card, Descriptions, Space, Spin, Table, Timeline } from 'antd';
import dayjs from 'dayjs';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { fetchVersionLog, type VersionLog } from '../../features/platform/api';

/** Settings "sourceCodeLog": the platform's own version log, read only: the running
 * version and commit, the migrations applied with their dates, and the release notes (CHANGELOG.md). */
export default function SourceCodeLogScreen() {
  const { t } = useTranslation('settings');
  const [log, setLog] = useState<VersionLog | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    void fetchVersionLog(controller.signal).then((reply) => {
      if (!controller.signal.aborted && reply.code === 0) setLog(reply.data);
    });
    return () => controller.abort();
  }, []);
  if (!log) return <Spin style={{ display: 'block', margin: 48 }} />;

  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }} data-testid="version-screen">
      <Card title={t('version.title')} size="small">
        <Descriptions size="small" bordered column={1} items={[
          { key: 'version', label: t('version.version'), children: <span data-testid="version-number">{log.version}</span> },
          { key: 'commit', label: t('version.commit'), children: <code data-testid="version-commit">{log.commit ?? t('version.unknownCommit')}</code> },
          { key: 'schema', label: t('version.schema'), children: log.migrations.at(-1)?.id ?? '-' },
        ]} />
      </Card>
      <Card title={t('version.releases')} size="small" data-testid="version-releases">
        <Timeline items={log.releases.map((release) => ({
          key: release.title,
          children: (
            <div>
              <strong>{release.title}</strong>{release.date ? <span style={{ marginLeft: 8, color: '#888' }}>{release.date}</span> : null}
              <ul style={{ margin: '4px 0 0', paddingLeft: 20 }}>
                {release.items.map((item) => <li key={item}>{item}</li>)}
              </ul>
            </div>
          ),
        }))} />
      </Card>
      <Card title={t('version.migrations')} size="small">
        <Table size="small" rowKey="id" dataSource={log.migrations} pagination={false} data-testid="version-migrations" columns={[
          { key: 'id', dataIndex: 'id', title: t('version.migration') },
          { key: 'appliedAt', dataIndex: 'appliedAt', title: t('version.appliedAt'), render: (value: string) => dayjs(value).format('YYYY-MM-DD HH:mm:ss') },
        ]} />
      </Card>
    </Space>
  );
}
