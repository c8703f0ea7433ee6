/**
 * The fleet's running charts (platform-spec §2 monitor dashboard: speed, mileage, overspeed, driving time,
 * average speed) over chosen days of the caller's tree: the speeds of the vehicles online now, and per day
 * the mileage, overspeeds, driving time and average speed while driving (POST
 * /api/report/car/dayReport/sum.json grouped by day). The monitor route itself is the video view.
 */
import { Card, Col, DatePicker, Row, Space, Typography } from 'antd';
import type { Dayjs } from 'dayjs';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { isOnlineBizState } from '../../live/bizState';
import { dayPresets } from '../list/filterKinds';
import { dayKey } from '../list/model';
import type { ListRecord } from '../list/types';
import { fetchFleetSnapshot } from '../map/model/api';
import { daysBetween } from '../report/aggregate';
import { daySums } from '../report/api';
import EChart from '../report/charts/EChart';
import { lastDays } from '../report/reportScreen';
import { DAY_FIELDS, monitorCharts } from './analysisModel';

export default function AnalysisPage() {
  const { t } = useTranslation(['dashboard', 'list']);
  const [range, setRange] = useState<[Dayjs, Dayjs]>(() => lastDays(14));
  const [rows, setRows] = useState<ListRecord[] | null>(null);
  const [speeds, setSpeeds] = useState<number[]>([]);
  const first = dayKey(range[0]);
  const last = dayKey(range[1]);
  useEffect(() => {
    const controller = new AbortController();
    void daySums('date', DAY_FIELDS, { 'date.gte': first, 'date.lte': last }, {}, controller.signal).then((reply) => {
      if (!controller.signal.aborted) setRows(reply.code === 0 ? reply.data ?? [] : []);
    });
    return () => controller.abort();
  }, [first, last]);
  useEffect(() => {
    const controller = new AbortController();
    void fetchFleetSnapshot(controller.signal).then((snapshot) => {
      if (controller.signal.aborted || !snapshot) return;
      const online = new Set(snapshot.states.filter(([, s]) => s.online && isOnlineBizState(s.bizState)).map(([d]) => d));
      setSpeeds(snapshot.positions.filter((p) => online.has(p.deviceId)).map((p) => p.speed));
    });
    return () => controller.abort();
  }, []);
  const days = useMemo(() => daysBetween(first, last), [first, last]);
  const charts = useMemo(() => monitorCharts(rows ?? [], days, speeds, (key) => t(`analysis.${key}`)), [rows, days, speeds, t]);
  const card = (key: keyof typeof charts, title: string) => (
    <Col xs={24} xl={12} key={key}>
      <Card size="small" title={title} loading={rows === null}>
        <EChart option={charts[key]} height={260} testId={`analysis-chart-${key}`} data={{ points: key === 'speed' ? speeds.length : rows?.length ?? 0 }} />
      </Card>
    </Col>
  );
  return (
    <div data-testid="dashboard-analysis">
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 16 }} wrap>
        <Typography.Title level={4} style={{ margin: 0 }}>{t('analysis.title')}</Typography.Title>
        <DatePicker.RangePicker value={range} allowClear={false} data-testid="analysis-range"
          onChange={(value) => { if (value?.[0] && value[1]) setRange([value[0], value[1]]); }}
          presets={dayPresets().map((p) => ({ label: t(`list:presets.${p.key}`), value: p.value }))} />
      </Space>
      <Row gutter={[16, 16]}>
        {card('speed', t('analysis.speedNow'))}
        {card('mileage', t('analysis.mileage'))}
        {card('overspeed', t('analysis.overspeed'))}
        {card('driving', t('analysis.driving'))}
        {card('avgSpeed', t('analysis.avgSpeed'))}
      </Row>
    </div>
  );
}
