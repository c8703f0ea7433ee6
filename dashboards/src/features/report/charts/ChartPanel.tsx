/**
 * Charts above a report's table: figures loaded for the list's current filters (every page, not only
 * the one shown), re-loaded when the filters change, drawn side by side.
 */
import { Card, Col, Empty, Row, Spin, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ListView } from '../../list/types';
import { LoadedEChart } from './LoadedEChart';

export interface PanelChart {
  key: string;
  title: string;
  option: object;
  /** How many points the chart draws (0: an empty note instead). */
  points: number;
  /** Share of the row (24 = whole width). */
  span?: number;
  height?: number;
}

export type ChartLoader = (view: ListView, signal: AbortSignal) => Promise<PanelChart[]>;

interface Props {
  view: ListView;
  load: ChartLoader;
  /** A note under the charts (e.g. that they cover the first rows only). */
  note?: string;
}

export default function ChartPanel({ view, load, note }: Props) {
  const { t } = useTranslation('report');
  const key = JSON.stringify([view.body, view.params]);
  const [state, setState] = useState<{ key: string; charts: PanelChart[] | null }>({ key: '', charts: null });
  useEffect(() => {
    const controller = new AbortController();
    const [body, params] = JSON.parse(key) as [ListView['body'], ListView['params']];
    void load({ body, params, rows: [], total: 0 }, controller.signal).then(
      (charts) => { if (!controller.signal.aborted) setState({ key, charts }); },
      () => { if (!controller.signal.aborted) setState({ key, charts: [] }); },
    );
    return () => controller.abort();
  }, [key, load]);
  const charts = state.key === key ? state.charts : null;
  return (
    <Card size="small" style={{ marginBottom: 16 }} data-testid="report-charts" data-loaded={charts ? 'true' : 'false'}>
      {charts === null ? <Spin style={{ display: 'block', margin: 24 }} /> : (
        <Row gutter={[16, 16]}>
          {charts.map((chart) => (
            <Col key={chart.key} xs={24} lg={chart.span ?? 12}>
              <Typography.Text strong>{chart.title}</Typography.Text>
              {chart.points > 0
                ? <LoadedEChart option={chart.option} height={chart.height ?? 280} testId={`report-chart-${chart.key}`} data={{ points: chart.points }} />
                : <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('chart.empty')} data-testid={`report-chart-${chart.key}-empty`} />}
            </Col>
          ))}
        </Row>
      )}
      {note ? <Typography.Text type="secondary">{note}</Typography.Text> : null}
    </Card>
  );
}
