/**
 * The speed chart under the map (ECharts, only the parts used, so the page's lazy chunk stays small):
 * one line per vehicle in its track colour, a cursor at the replay's current time, and a click
 * anywhere on the chart seeks the replay to that time.
 */
import { LineChart } from 'echarts/charts';
import { DataZoomComponent, GridComponent, LegendComponent, MarkLineComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { VehicleTrack } from './track';

echarts.use([LineChart, GridComponent, TooltipComponent, LegendComponent, MarkLineComponent, DataZoomComponent, CanvasRenderer]);

export interface SpeedChartProps {
  tracks: readonly VehicleTrack[];
  time: number | null;
  onSeekTime: (time: number) => void;
}

const CURSOR_SERIES = 'replay-cursor';

function cursorOption(time: number | null) {
  return {
    id: CURSOR_SERIES,
    type: 'line' as const,
    data: [],
    silent: true,
    markLine: {
      symbol: 'none',
      animation: false,
      label: { show: false },
      lineStyle: { color: '#f5222d', width: 1.5, type: 'solid' as const },
      data: time === null ? [] : [{ xAxis: time }],
    },
  };
}

export function SpeedChart({ tracks, time, onSeekTime }: SpeedChartProps) {
  const { t } = useTranslation('replay');
  const [chart, setChart] = useState<echarts.ECharts | null>(null);
  const onSeek = useRef(onSeekTime);
  useEffect(() => {
    onSeek.current = onSeekTime;
  });

  // The chart lives as long as its element; it follows the element's size.
  const attach = useCallback((element: HTMLDivElement | null) => {
    if (!element) return undefined;
    const instance = echarts.init(element);
    instance.getZr().on('click', (event: { offsetX: number; offsetY: number }) => {
      const point = [event.offsetX, event.offsetY];
      if (!instance.containPixel('grid', point)) return;
      const [x] = instance.convertFromPixel('grid', point) as number[];
      if (Number.isFinite(x)) onSeek.current(x);
    });
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(() => instance.resize());
    observer?.observe(element);
    setChart(instance);
    return () => {
      observer?.disconnect();
      setChart(null);
      instance.dispose();
    };
  }, []);

  const option = useMemo(() => ({
    animation: false,
    grid: { left: 48, right: 24, top: 32, bottom: 48 },
    legend: { top: 0, data: tracks.map((track) => track.plateNumber) },
    tooltip: { trigger: 'axis' as const },
    xAxis: { type: 'time' as const },
    yAxis: { type: 'value' as const, name: t('chart.speedUnit'), min: 0 },
    dataZoom: [{ type: 'inside' as const }, { type: 'slider' as const, height: 16, bottom: 8 }],
    series: [
      ...tracks.map((track) => ({
        id: `speed-${track.carId}`,
        name: track.plateNumber,
        type: 'line' as const,
        showSymbol: false,
        sampling: 'lttb' as const,
        color: track.color,
        lineStyle: { width: 1.5 },
        data: track.points.map((p) => [p.time, p.speed ?? 0]),
      })),
      cursorOption(null),
    ],
  }), [tracks, t]);

  useEffect(() => {
    chart?.setOption(option, { notMerge: true });
  }, [chart, option]);

  // The cursor alone is updated as the replay runs (a merge of one series, not the whole option).
  useEffect(() => {
    chart?.setOption({ series: [cursorOption(time)] });
  }, [chart, option, time]);

  return <div ref={attach} className="fw-replay-chart" data-testid="replay-chart" data-cursor={time ?? ''} />;
}
