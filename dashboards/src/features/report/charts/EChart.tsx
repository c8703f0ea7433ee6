/**
 * One ECharts canvas (only the chart kinds the reports use are registered, so the lazy report chunk stays
 * small): created with its element, resized with it, disposed with it; the option replaces the last one.
 */
import { BarChart, LineChart, PieChart } from 'echarts/charts';
import { DataZoomComponent, GridComponent, LegendComponent, TitleComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { useCallback, useEffect, useState } from 'react';

echarts.use([BarChart, LineChart, PieChart, GridComponent, TooltipComponent, LegendComponent, DataZoomComponent, TitleComponent,
  CanvasRenderer]);

export interface EChartProps {
  option: object;
  height?: number | string;
  testId?: string;
  /** Marks on the element for tests (e.g. how many points the chart holds). */
  data?: Record<string, string | number>;
  onClick?: (params: { name: string; dataIndex: number; seriesName?: string }) => void;
}

export default function EChart({ option, height = 300, testId, data = {}, onClick }: EChartProps) {
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
    chart?.setOption(option as echarts.EChartsCoreOption, true);
  }, [chart, option]);
  useEffect(() => {
    if (!chart || !onClick) return undefined;
    chart.on('click', onClick as never);
    return () => {
      chart.off('click');
    };
  }, [chart, onClick]);
  const marks = Object.fromEntries(Object.entries(data).map(([k, v]) => [`data-${k}`, v]));
  return <div ref={attach} style={{ height, width: '100%' }} data-testid={testId} {...marks} />;
}
