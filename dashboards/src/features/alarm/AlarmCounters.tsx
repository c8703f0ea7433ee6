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
import { onAlarmChanged } from './alarmEvents';
import { PUSH_ALARM } from './alarmPush';
import { fetchAlarmCounts, type AlarmCounts, type CountRange } from './api';

echarts.use([BarChart, GridComponent, TooltipComponent, CanvasRenderer]);

const RANGES: CountRange[] = ['today', 'week', 'month'];
const COUNTERS = ['alarmingVehicles', 'unhandled', 'activeSafety'] as const;
const REFRESH_MS = 60000;
/** New alarms (push 2) and handling re-read the counters, at most once per this delay. */
const LIVE_DELAY_MS = 1000;

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
    const load = () => fetchAlarmCounts(range, controller.signal).then((next) => {
      if (controller.signal.aborted) return;
      setCounts(next);
      setLoading(false);
    });
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    let pending: ReturnType<typeof setTimeout> | null = null;
    const soon = () => {
      pending ??= setTimeout(() => {
        pending = null;
        void load();
      }, LIVE_DELAY_MS);
    };
    const stopPushes = hub?.onPush((push) => {
      if (push.type === PUSH_ALARM) soon();
    });
    const stopChanges = onAlarmChanged(soon);
    return () => {
      clearInterval(timer);
      if (pending !== null) clearTimeout(pending);
      stopPushes?.();
      stopChanges();
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
