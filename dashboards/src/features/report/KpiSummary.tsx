/**
 * The regulator KPIs of the chosen days in total (docs/kpi.md): 入网率, 上线率, 轨迹完整率, 数据合格率, 漂移率,
 * each with its numerator and denominator, and their trend per day (the enterprises' KPI days summed: never an
 * average of percentages).
 */
import { Card, Col, Row, Statistic, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { decimalText } from '../list/display';
import type { ListRecord, ListView } from '../list/types';
import { daysBetween, ratioText } from './aggregate';
import { dayRatios, KPI_RATIOS } from './kpi';
import { enterpriseScope, kpiPeriod, rangeOf } from './api';
import ChartPanel, { type ChartLoader } from './charts/ChartPanel';
import { rowsFor } from './charts/loaders';
import { dayLabels, trendOption } from './charts/options';

const trend: (t: (key: string) => string) => ChartLoader = (t) => async (view, signal) => {
  const { startDate, endDate } = rangeOf(view.body);
  if (!startDate || !endDate) return [];
  const days = daysBetween(startDate, endDate);
  const fields = ['date', ...new Set(KPI_RATIOS.flatMap(([, n, d]) => [n, d]))];
  const { rows } = await rowsFor('kpiEnterpriseDay', view, fields, signal);
  const ratios = dayRatios(rows, days);
  return [{ key: 'kpi', title: t('chart.kpiPerDay'), span: 24, points: rows.length, option: trendOption({
    categories: dayLabels(days), units: ['%'], zoomAbove: 31,
    series: KPI_RATIOS.filter(([r]) => r !== 'joinRate').map(([ratio]) => ({ name: t(`fields.${ratio}`), type: 'line' as const, data: ratios[ratio] })),
  }) }];
};

export default function KpiSummary({ view }: { view: ListView }) {
  const { t } = useTranslation('report');
  const [summary, setSummary] = useState<ListRecord | null>(null);
  const key = JSON.stringify(view.body);
  useEffect(() => {
    const controller = new AbortController();
    const body = JSON.parse(key) as Record<string, unknown>;
    const { startDate, endDate } = rangeOf(body);
    if (startDate && endDate) {
      void kpiPeriod(startDate, endDate, enterpriseScope(body), controller.signal).then((reply) => {
        if (!controller.signal.aborted) setSummary(reply.code === 0 ? reply.data?.summary ?? null : null);
      });
    }
    return () => controller.abort();
  }, [key]);
  const [load] = useState(() => trend(t));
  return (
    <>
      <Row gutter={[16, 16]} style={{ marginBottom: 16 }} data-testid="kpi-summary">
        {KPI_RATIOS.map(([ratio, num, den]) => (
          <Col xs={12} md={8} xl={4} key={ratio}>
            <Card size="small">
              <Statistic title={t(`fields.${ratio}`)} value={ratioText(summary?.[ratio])}
                valueRender={(node) => <span data-testid={`kpi-${ratio}`}>{node}</span>} />
              <Typography.Text type="secondary">
                {summary ? `${t(`fields.${num}`)} ${decimalText(summary[num] ?? 0)} / ${t(`fields.${den}`)} ${decimalText(summary[den] ?? 0)}` : ''}
              </Typography.Text>
            </Card>
          </Col>
        ))}
      </Row>
      <ChartPanel view={view} load={load} />
    </>
  );
}
