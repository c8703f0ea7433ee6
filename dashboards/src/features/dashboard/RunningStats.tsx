/**
 * Running-state statistics of the dashboard (console-spec §1, platform-spec §1) for today / this week / this
 * month: hours driving, idling, engine off, without signal and offline, mileage, trips and overspeeds of the
 * caller's tree, summed from the vehicles' day rows (POST /api/report/car/dayReport/sum.json; today's rows
 * are the provisional ones rebuilt every 15 minutes), refreshed with the page.
 */
import { Card, Col, Empty, Row, Segmented, Statistic } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { stateColour } from '../../live/bizState';
import { http } from '../../api/client';
import EChart from '../report/charts/EChart';
import { shareOption } from '../report/charts/options';
import { rangeDays, type RunningRange } from './runningRange';

const RANGES: RunningRange[] = ['today', 'week', 'month'];
const STATES: [string, number][] = [['driveS', 1], ['idleS', 2], ['engineOffS', 3], ['noSignalS', 4], ['offlineS', 0]];
const FIGURES = ['mileageKm', 'trips', 'overspeedCount'] as const;
const REFRESH_MS = 60000;

type Sums = Record<string, number | null>;

export default function RunningStats({ refreshKey = 0 }: { refreshKey?: number }) {
  const { t } = useTranslation('dashboard');
  const [range, setRange] = useState<RunningRange>('today');
  const [sums, setSums] = useState<{ range: RunningRange; sums: Sums | null } | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    const load = () => http.post<Sums>('/api/report/car/dayReport/sum.json', {
      params: { ...rangeDays(range), select: [...STATES.map(([f]) => f), ...FIGURES].join(',') },
      body: {}, signal: controller.signal, quiet: true,
    }).then((reply) => {
      if (!controller.signal.aborted) setSums({ range, sums: reply.code === 0 ? reply.data : null });
    });
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => {
      clearInterval(timer);
      controller.abort();
    };
  }, [range, refreshKey]);
  const shown = sums?.range === range ? sums.sums : null;
  const option = useMemo(() => shareOption(STATES.map(([field, state]) => ({
    name: t(`running.${field}`), value: Math.round(((shown?.[field] ?? 0) / 3600) * 10) / 10, colour: stateColour(state),
  })), t('running.hours')), [shown, t]);
  const any = STATES.some(([field]) => (shown?.[field] ?? 0) > 0);
  return (
    <Card title={t('running.title')} style={{ marginTop: 16 }} data-testid="running-stats" data-range={range} loading={sums === null}
      extra={<Segmented<RunningRange> value={range} onChange={setRange} data-testid="running-range"
        options={RANGES.map((value) => ({ value, label: t(`running.range.${value}`) }))} />}>
      <Row gutter={[16, 16]}>
        <Col xs={24} md={10}>
          <Row gutter={[16, 16]}>
            {FIGURES.map((field) => (
              <Col span={8} key={field}>
                <Statistic title={t(`running.${field}`)} value={Math.round(shown?.[field] ?? 0)}
                  valueRender={(node) => <span data-testid={`running-${field}`}>{node}</span>} />
              </Col>
            ))}
            {STATES.map(([field, state]) => (
              <Col span={8} key={field}>
                <Statistic title={t(`running.${field}`)} value={((shown?.[field] ?? 0) / 3600).toFixed(1)} suffix={t('running.h')}
                  styles={{ content: { color: stateColour(state) } }} />
              </Col>
            ))}
          </Row>
        </Col>
        <Col xs={24} md={14}>
          {any ? <EChart option={option} height={260} testId="running-chart" /> : <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('running.none')} />}
        </Col>
      </Row>
    </Card>
  );
}
