/**
 * The dispatch (出车) dashboard (route /dashboard/ship; platform-spec §2 dashboard ship, §1 running-state
 * statistics): the fleet now (the fleet figures of every screen: driving, parked, engine off, offline, today's
 * mileage), today's vehicles out and idle with the dispatch rate and trips (the day rows, model.ts), vehicles out,
 * trips and mileage per day of today / this week / this month, today's vehicles out with their first ignition, and
 * the running-state statistics of the dashboard index (RunningStats).
 */
import { Card, Col, Empty, Row, Segmented, Statistic, Table, Typography } from 'antd';
import dayjs from 'dayjs';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { stateColour } from '../../../live/bizState';
import { fetchFleetFigures, FIGURES_REFRESH_MS, type FleetFigures } from '../../figures/api';
import EChart from '../../report/charts/EChart';
import { dayLabels, trendOption } from '../../report/charts/options';
import RunningStats from '../RunningStats';
import type { RunningRange } from '../runningRange';
import { dispatch, fetchOutToday, fetchShipDays, type OutVehicle, type ShipDay } from './model';

const RANGES: RunningRange[] = ['today', 'week', 'month'];
const DAY_ROWS_REFRESH_MS = 60_000;
const OUT_LIST_SIZE = 10;
const LIVE: [keyof FleetFigures, number | null][] = [['total', null], ['running', 1], ['parking', 2], ['flameout', 3], ['offline', 0]];

function Figure({ id, title, value, precision, suffix, colour }: { id: string; title: string; value: number | null; precision?: number; suffix?: string; colour?: string }) {
  return (
    <Statistic title={title} value={value ?? '-'} precision={precision} suffix={suffix} styles={colour ? { content: { color: colour } } : undefined}
      valueRender={(node) => <span data-testid={`ship-${id}`} data-value={value ?? ''}>{node}</span>} />
  );
}

export default function ShipPage() {
  const { t } = useTranslation('dashboard');
  const [range, setRange] = useState<RunningRange>('week');
  const [figures, setFigures] = useState<FleetFigures | null>(null);
  const [days, setDays] = useState<{ range: RunningRange; days: ShipDay[] | null } | null>(null);
  const [out, setOut] = useState<OutVehicle[] | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    const load = () => fetchFleetFigures(controller.signal).then((next) => { if (!controller.signal.aborted) setFigures(next); });
    void load();
    const timer = setInterval(() => void load(), FIGURES_REFRESH_MS);
    return () => { clearInterval(timer); controller.abort(); };
  }, []);
  useEffect(() => {
    const controller = new AbortController();
    const load = () => Promise.all([fetchShipDays(range, controller.signal), fetchOutToday(OUT_LIST_SIZE, controller.signal)])
      .then(([nextDays, nextOut]) => {
        if (controller.signal.aborted) return;
        setDays({ range, days: nextDays });
        setOut(nextOut ?? []);
      });
    void load();
    const timer = setInterval(() => void load(), DAY_ROWS_REFRESH_MS);
    return () => { clearInterval(timer); controller.abort(); };
  }, [range]);

  const shown = days?.range === range ? days.days : null;
  const today = shown?.[shown.length - 1] ?? null;
  const { rate, idle } = dispatch(today?.out ?? 0, figures?.total ?? 0);
  const option = useMemo(() => trendOption({
    categories: dayLabels((shown ?? []).map((d) => d.date)),
    series: [
      { name: t('ship.out'), data: (shown ?? []).map((d) => d.out) },
      { name: t('ship.trips'), data: (shown ?? []).map((d) => d.trips) },
      { name: t('ship.mileageKm'), data: (shown ?? []).map((d) => Math.round(d.mileageKm * 10) / 10), type: 'line', yAxisIndex: 1 },
    ],
    units: [t('ship.count'), t('kmUnit')],
  }), [shown, t]);

  return (
    <div data-testid="ship-dashboard" data-loaded={figures && shown ? 'true' : 'false'}>
      <Typography.Title level={4} style={{ marginTop: 0 }}>{t('ship.title')}</Typography.Title>
      <Card title={t('ship.now')} loading={!figures}>
        <Row gutter={[16, 16]}>
          {LIVE.map(([key, state]) => (
            <Col xs={12} md={4} key={key}>
              <Figure id={key} title={t(`counters.${key}`)} value={figures ? Number(figures[key]) : null}
                colour={state === null ? undefined : stateColour(state)} />
            </Col>
          ))}
          <Col xs={12} md={4}>
            <Figure id="todayMileageKm" title={t('counters.todayMileageKm')} value={figures?.todayMileageKm ?? null} precision={1} suffix={t('kmUnit')} />
          </Col>
        </Row>
      </Card>
      <Card title={t('ship.today')} style={{ marginTop: 16 }} loading={!shown}>
        <Row gutter={[16, 16]}>
          <Col xs={12} md={6}><Figure id="out" title={t('ship.out')} value={today?.out ?? 0} suffix={t('unit')} colour={stateColour(1)} /></Col>
          <Col xs={12} md={6}><Figure id="idle" title={t('ship.idle')} value={figures ? idle : null} suffix={t('unit')} /></Col>
          <Col xs={12} md={6}><Figure id="rate" title={t('ship.rate')} value={figures ? rate : null} suffix="%" /></Col>
          <Col xs={12} md={6}><Figure id="trips" title={t('ship.trips')} value={today?.trips ?? 0} /></Col>
        </Row>
        <Typography.Paragraph type="secondary" style={{ marginTop: 8, marginBottom: 0 }}>{t('ship.rule')}</Typography.Paragraph>
      </Card>
      <Card title={t('ship.perDay')} style={{ marginTop: 16 }} data-testid="ship-days" data-range={range}
        extra={<Segmented<RunningRange> value={range} onChange={setRange} data-testid="ship-range"
          options={RANGES.map((value) => ({ value, label: t(`running.range.${value}`) }))} />}>
        {shown && shown.some((d) => d.out > 0 || d.trips > 0)
          ? <EChart option={option} height={280} testId="ship-chart" data={{ days: shown.length }} />
          : <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('running.none')} />}
      </Card>
      <Card title={t('ship.outList')} style={{ marginTop: 16 }} data-testid="ship-out-list">
        <Table<OutVehicle> size="small" pagination={false} rowKey="carId" loading={out === null} dataSource={out ?? []}
          columns={[
            { key: 'plate', title: t('ship.plate'), render: (_, row) => <Link to={`/list/carDetail?carId=${row.carId}`} data-testid={`ship-car-${row.carId}`}>{row.plateNumber}</Link> },
            { key: 'start', title: t('ship.firstAccOnAt'), render: (_, row) => (row.firstAccOnAt ? dayjs(row.firstAccOnAt).format('HH:mm:ss') : '') },
            { key: 'trips', title: t('ship.trips'), dataIndex: 'trips' },
            { key: 'km', title: t('ship.mileageKm'), render: (_, row) => row.mileageKm.toFixed(1) },
            { key: 'drive', title: t('ship.driveH'), render: (_, row) => (row.driveS / 3600).toFixed(1) },
          ]} />
      </Card>
      <RunningStats />
    </div>
  );
}
