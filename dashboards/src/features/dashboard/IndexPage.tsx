/**
 * The dashboard index: online vehicles and today's figures as the server defines them for every screen
 * (features/figures: the cockpits show the same numbers at the same cadence, FIGURES_REFRESH_MS) and
 * today's online total, the alarm counters (features/alarm) and the running-state statistics
 * (RunningStats), each of the last two for today / this week / this month.
 */
import { ReloadOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Col, Progress, Row, Space, Statistic, Typography } from 'antd';
import dayjs from 'dayjs';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { stateColour } from '../../live/bizState';
import AlarmCounters from '../alarm/AlarmCounters';
import RunningStats from './RunningStats';
import { FIGURES_REFRESH_MS } from '../figures/api';
import { fetchDashboardCounts, type DashboardCounts } from './api';

export const DASHBOARD_REFRESH_MS = FIGURES_REFRESH_MS;

type CounterKey = 'online' | 'todayOnline' | 'total' | 'running' | 'parking' | 'flameout' | 'noSignal' | 'offline';
type TodayKey = 'alarming' | 'todayMileageKm' | 'todayAlarms' | 'unhandled';

const HEADLINE: CounterKey[] = ['online', 'todayOnline', 'total'];
/** Today's figures with their unit key. */
const TODAY: [TodayKey, string][] = [['alarming', 'unit'], ['todayMileageKm', 'kmUnit'], ['todayAlarms', 'alarmUnit'], ['unhandled', 'alarmUnit']];
/** Business states in report order, with the state value that gives their colour. */
const STATES: [CounterKey, number][] = [
  ['running', 1],
  ['parking', 2],
  ['flameout', 3],
  ['noSignal', 4],
  ['offline', 0],
];

interface Snapshot {
  counts: DashboardCounts | null;
  at: number;
  failed: boolean;
}

export default function IndexPage() {
  const { t } = useTranslation('dashboard');
  const [snapshot, setSnapshot] = useState<Snapshot | null>(null);
  const [request, setRequest] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    const load = () =>
      fetchDashboardCounts(controller.signal).then((counts) => {
        if (!controller.signal.aborted) setSnapshot({ counts, at: Date.now(), failed: counts === null });
      });
    void load();
    const timer = setInterval(() => void load(), DASHBOARD_REFRESH_MS);
    return () => {
      clearInterval(timer);
      controller.abort();
    };
  }, [request]);

  const refresh = useCallback(() => setRequest((n) => n + 1), []);
  const counts = snapshot?.counts ?? null;
  const loading = snapshot === null;
  const value = (key: CounterKey) => counts?.[key] ?? 0;
  const percent = (n: number) => (counts && counts.total > 0 ? Math.round((n / counts.total) * 1000) / 10 : 0);

  return (
    <div className="fw-dashboard-index" data-testid="dashboard-index">
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }} wrap>
        <Typography.Title level={4} style={{ margin: 0 }}>
          {t('title')}
        </Typography.Title>
        <Space>
          <Typography.Text type="secondary">
            {snapshot ? t('updatedAt', { time: dayjs(snapshot.at).format('HH:mm:ss') }) : t('autoRefresh')}
          </Typography.Text>
          <Button icon={<ReloadOutlined />} onClick={refresh} data-testid="dashboard-refresh">
            {t('refresh')}
          </Button>
        </Space>
      </Space>
      {snapshot?.failed && <Alert type="warning" showIcon message={t('loadFailed')} style={{ marginBottom: 16 }} />}
      <Row gutter={[16, 16]}>
        {HEADLINE.map((key) => (
          <Col xs={24} sm={8} key={key}>
            <Card loading={loading}>
              <Statistic
                title={t(`counters.${key}`)}
                value={value(key)}
                suffix={t('unit')}
                valueRender={(node) => <span data-testid={`counter-${key}`}>{node}</span>}
              />
              {key === 'online' && (
                <Progress percent={percent(value('online'))} size="small" format={(p) => `${t('onlineRate')} ${p}%`} />
              )}
            </Card>
          </Col>
        ))}
      </Row>
      <Card title={t('today')} style={{ marginTop: 16 }} loading={loading}>
        <Row gutter={[16, 16]}>
          {TODAY.map(([key, unit]) => (
            <Col xs={12} sm={6} key={key}>
              <Statistic
                title={t(`counters.${key}`)}
                value={counts?.[key] ?? '-'}
                precision={key === 'todayMileageKm' ? 1 : 0}
                suffix={t(unit)}
                valueRender={(node) => <span data-testid={`counter-${key}`}>{node}</span>}
              />
            </Col>
          ))}
        </Row>
      </Card>
      <Card title={t('stateDistribution')} style={{ marginTop: 16 }} loading={loading}>
        <Row gutter={[16, 16]}>
          {STATES.map(([key, state]) => (
            <Col xs={12} sm={8} md={4} key={key} style={{ minWidth: 140 }}>
              <Statistic
                title={t(`counters.${key}`)}
                value={value(key)}
                styles={{ content: { color: stateColour(state) } }}
                valueRender={(node) => <span data-testid={`counter-${key}`}>{node}</span>}
              />
              <Progress percent={percent(value(key))} showInfo={false} size="small" strokeColor={stateColour(state)} />
            </Col>
          ))}
        </Row>
      </Card>
      <AlarmCounters refreshKey={request} />
      <RunningStats refreshKey={request} />
    </div>
  );
}
