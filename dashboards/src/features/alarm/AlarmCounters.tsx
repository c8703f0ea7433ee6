/**
 * The dashboard's alarm counters (console-spec §1): alarming vehicles, unhandled alarms, active-safety
 * alarms and the alarms by type as a bar chart, for today / this week / this month
 * (GET /api/dashboard/alarmCounts.json), refreshed with the rest of the page, on each new alarm (push 2)
 * and when an alarm is handled or ignored here.
 */
import { BarChart } from 'echarts/charts';
import { GridComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { Card, Col, Empty, Row, Segmented, Statistic } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLiveHub } from '../../live/useLiveHub';
import { keepAlarmFiguresFresh } from './alarmEvents';
import { fetchAlarmCounts, type AlarmCounts, type CountRange } from './api';

echarts.use([BarChart, GridComponent, TooltipComponent, CanvasRenderer]);

const RANGES: CountRange[] = ['today', 'week', 'month'];
const COUNTERS = ['alarmingVehicles', 'unhandled', 'activeSafety'] as const;

function AlarmTypeChart({ rows, label }: { rows: AlarmCounts['byType']; label: string }) {
  const [chart, setChart] = useState<echarts.ECharts | null>(null);
  const attach = useCallback((element: HTMLDivElement | null) => {
    if (!element) return undefined;
    const instance = echarts.init(element);
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(() => instance.resize());
    observer?.observe(element);
    setChart(instance);
    return () => {
      observer?.disconnect();
      setChart(null);
      instance.dispose();
    };
  }, []);
  useEffect(() => {
    chart?.setOption({
      animation: false,
      grid: { left: 48, right: 16, top: 16, bottom: 72 },
      tooltip: { trigger: 'axis' },
      xAxis: { type: 'category', data: rows.map((row) => row.desc), axisLabel: { interval: 0, rotate: 30 } },
      yAxis: { type: 'value', minInterval: 1 },
      series: [{ type: 'bar', name: label, data: rows.map((row) => row.count), itemStyle: { color: '#f5222d' }, barMaxWidth: 32 }],
    }, true);
  }, [chart, rows, label]);
  return <div ref={attach} style={{ height: 280 }} data-testid="alarm-type-chart" data-types={rows.length} />;
}

export default function AlarmCounters({ refreshKey = 0 }: { refreshKey?: number }) {
  const { t } = useTranslation('alarm');
  const [range, setRange] = useState<CountRange>('today');
  const [counts, setCounts] = useState<AlarmCounts | null>(null);
  const [loading, setLoading] = useState(true);
  const hub = useLiveHub();

  useEffect(() => {
    const controller = new AbortController();
    const stop = keepAlarmFiguresFresh(() => void fetchAlarmCounts(range, controller.signal).then((next) => {
      if (controller.signal.aborted) return;
      setCounts(next);
      setLoading(false);
    }), hub);
    return () => {
      stop();
      controller.abort();
    };
  }, [range, refreshKey, hub]);

  return (
    <Card
      title={t('dashboard.statistics')}
      style={{ marginTop: 16 }}
      data-testid="alarm-counters"
      data-range={range}
      extra={(
        <Segmented<CountRange>
          value={range}
          onChange={setRange}
          data-testid="alarm-range"
          options={RANGES.map((value) => ({ value, label: t(`dashboard.range.${value}`) }))}
        />
      )}
    >
      <Row gutter={[16, 16]}>
        {COUNTERS.map((key) => (
          <Col xs={24} sm={8} key={key}>
            <Statistic
              loading={loading}
              title={t(`dashboard.${key}`)}
              value={counts?.[key] ?? 0}
              styles={key === 'alarmingVehicles' ? undefined : { content: { color: '#f5222d' } }}
              valueRender={(node) => <span data-testid={`alarm-counter-${key}`} data-value={counts?.[key] ?? ''}>{node}</span>}
            />
          </Col>
        ))}
      </Row>
      {counts && counts.byType.length > 0
        ? <AlarmTypeChart rows={counts.byType} label={t('dashboard.count')} />
        : <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} />}
    </Card>
  );
}
