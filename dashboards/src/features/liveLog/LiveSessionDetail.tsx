import { Card, Descriptions, Result, Spin, Table, Timeline } from 'antd';
import dayjs from 'dayjs';
import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { formatDuration } from '../log/logScreens';
import { fetchLiveSession, type LiveSessionDetail as Detail, type LiveTimelineEvent } from './api';
import { formatBytes } from './format';

function time(value: string | null | undefined): string {
  return value ? dayjs(value).format('YYYY-MM-DD HH:mm:ss') : '';
}

const MSG = { 37121: '0x9101', 37122: '0x9102' } as Record<number, string>;

/**
 * A live session's detail (platform-spec §2 logs: live, with detail; `?id=`): the session as the media server
 * recorded it (who, which vehicle's channel, data used, how it ended) and its timeline: the request, the 0x9101
 * and its answer, the first frame, the viewers joining and leaving, the last heartbeat, the 0x9102 and the end.
 */
export default function LiveSessionDetail() {
  const { t } = useTranslation(['liveLog', 'log']);
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  const [loaded, setLoaded] = useState<{ id: string; detail: Detail | null } | null>(null);

  useEffect(() => {
    if (!id) return undefined;
    const controller = new AbortController();
    void fetchLiveSession(id, controller.signal).then((reply) => {
      if (!controller.signal.aborted) setLoaded({ id, detail: reply.code === 0 ? reply.data : null });
    });
    return () => controller.abort();
  }, [id]);

  if (!id || (loaded && loaded.id === id && !loaded.detail)) {
    return <Result status="404" title={t('detail.notFound')} data-testid="live-detail-not-found" extra={<Link to="/log/live">{t('detail.back')}</Link>} />;
  }
  if (!loaded || loaded.id !== id || !loaded.detail) return <Spin style={{ display: 'block', margin: 48 }} />;
  const { session, viewers, timeline } = loaded.detail;
  const describe = (event: LiveTimelineEvent): string => {
    const d = event.detail;
    const msg = MSG[Number(d.msgId)] ?? '';
    return t(`timeline.${event.event}`, {
      user: d.userName ?? '-', msg, by: d.createdByName ?? '-', client: d.client ?? '', bytes: formatBytes(d.bytesSent ?? d.bytesIn),
      count: Number(d.heartbeats ?? 0), reason: d.endReason ? t(`enums.endReason.${String(d.endReason)}`, { defaultValue: String(d.endReason) }) : '',
      result: d.result === undefined || d.result === null ? '' : t(`timeline.result.${String(d.result)}`, { defaultValue: String(d.result) }),
    });
  };
  const items: [string, ReactNode][] = [
    ['plateNumber', session.plateNumber], ['deviceSn', session.deviceSn], ['channel', session.channel],
    ['kind', t(`enums.kind.${session.kind}`)], ['userName', session.userName], ['requestTime', time(session.requestTime)],
    ['firstFrameTime', time(session.firstFrameTime)], ['endTime', time(session.endTime)],
    ['durationS', session.durationS === null ? '' : formatDuration(session.durationS, t)],
    ['bytesIn', formatBytes(session.bytesIn)], ['bytesSent', formatBytes(session.bytesSent)], ['frames', session.frames],
    ['heartbeats', session.heartbeats], ['peakViewers', session.peakViewers],
    ['endReason', session.endReason ? t(`enums.endReason.${session.endReason}`) : t('detail.inProgress')],
  ];
  return (
    <div data-testid="live-detail">
      <Card title={t('detail.title', { plate: session.plateNumber ?? '' })} extra={<Link to="/log/live">{t('detail.back')}</Link>}>
        <Descriptions size="small" column={{ xs: 1, md: 2, xl: 3 }} bordered>
          {items.map(([key, value]) => (
            <Descriptions.Item key={key} label={t(`fields.${key}`)}><span data-testid={`live-detail-${key}`}>{value}</span></Descriptions.Item>
          ))}
        </Descriptions>
      </Card>
      <Card title={t('detail.timeline')} style={{ marginTop: 16 }}>
        <Timeline
          data-testid="live-detail-timeline"
          items={timeline.map((event, index) => ({
            key: `${index}`,
            children: <span data-testid={`live-timeline-${event.event}`}>{time(event.time)} {describe(event)}</span>,
          }))}
        />
      </Card>
      <Card title={t('detail.viewers')} style={{ marginTop: 16 }}>
        <Table
          size="small"
          rowKey="id"
          pagination={false}
          dataSource={viewers}
          data-testid="live-detail-viewers"
          columns={[
            { key: 'userName', dataIndex: 'userName', title: t('fields.userName') },
            { key: 'client', dataIndex: 'client', title: t('viewer.client') },
            { key: 'startTime', dataIndex: 'startTime', title: t('viewer.startTime'), render: (v: string) => time(v) },
            { key: 'endTime', dataIndex: 'endTime', title: t('viewer.endTime'), render: (v: string | null) => time(v) },
            { key: 'bytesSent', dataIndex: 'bytesSent', title: t('fields.bytesSent'), render: (v: number) => formatBytes(v) },
          ]}
        />
      </Card>
    </div>
  );
}
