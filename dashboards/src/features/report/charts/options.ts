/**
 * ECharts options of the report screens, dashboards and cockpits: pure functions from figures to an
 * option object (tested without a canvas). Colours follow platform-spec §9 (success #52c41a, warning
 * #faad14, error #f5222f) and antd's primary blue.
 */

export const COLOURS = ['#1677ff', '#52c41a', '#faad14', '#f5222f', '#13c2c2', '#722ed1', '#eb2f96', '#fa8c16', '#2f54eb', '#a0d911'];

export interface SeriesSpec {
  name: string;
  data: (number | null)[];
  type?: 'bar' | 'line';
  /** Series with the same stack are stacked. */
  stack?: string;
  /** 1: the right axis. */
  yAxisIndex?: 0 | 1;
  colour?: string;
  area?: boolean;
}

export interface TrendSpec {
  categories: string[];
  series: SeriesSpec[];
  /** Axis names (units): the left and, when a series uses it, the right axis. */
  units?: [string, string?];
  /** Dark text for the cockpits' boards. */
  dark?: boolean;
  /** A slider under the chart when there are more categories than this. */
  zoomAbove?: number;
}

const textColour = (dark?: boolean) => (dark ? '#c9d1e0' : '#595959');
const splitColour = (dark?: boolean) => (dark ? 'rgba(255,255,255,0.08)' : '#f0f0f0');

/** A trend over days or months: bars and/or lines, stacked when asked, a second axis when used. */
export function trendOption(spec: TrendSpec) {
  const right = spec.series.some((s) => s.yAxisIndex === 1);
  const zoom = spec.zoomAbove !== undefined && spec.categories.length > spec.zoomAbove;
  const axis = (name?: string) => ({
    type: 'value' as const,
    name,
    nameTextStyle: { color: textColour(spec.dark) },
    axisLabel: { color: textColour(spec.dark) },
    splitLine: { lineStyle: { color: splitColour(spec.dark) } },
  });
  return {
    animation: false,
    color: COLOURS,
    grid: { left: 56, right: right ? 56 : 24, top: 40, bottom: zoom ? 64 : 32 },
    tooltip: { trigger: 'axis' as const },
    legend: { top: 4, textStyle: { color: textColour(spec.dark) } },
    xAxis: { type: 'category' as const, data: spec.categories, axisLabel: { color: textColour(spec.dark) } },
    yAxis: right ? [axis(spec.units?.[0]), { ...axis(spec.units?.[1]), splitLine: { show: false } }] : axis(spec.units?.[0]),
    dataZoom: zoom ? [{ type: 'slider' as const, height: 18, bottom: 8 }] : [],
    series: spec.series.map((s) => ({
      name: s.name,
      type: s.type ?? 'bar',
      data: s.data,
      stack: s.stack,
      yAxisIndex: right ? (s.yAxisIndex ?? 0) : undefined,
      smooth: s.type === 'line' ? true : undefined,
      areaStyle: s.area ? { opacity: 0.15 } : undefined,
      itemStyle: s.colour ? { color: s.colour } : undefined,
      barMaxWidth: 28,
    })),
  };
}

export interface Ranked {
  name: string;
  value: number;
  /** A colour of its own (a state's), kept when other shares are left out. */
  colour?: string;
}

/** A top-N ranking as horizontal bars, the largest on top. */
export function rankingOption(items: readonly Ranked[], name: string, options: { dark?: boolean; colour?: string; unit?: string } = {}) {
  const shown = [...items].reverse(); // ECharts draws a category axis bottom-up
  return {
    animation: false,
    grid: { left: 8, right: 48, top: 8, bottom: 8, containLabel: true },
    tooltip: { trigger: 'axis' as const, axisPointer: { type: 'shadow' as const } },
    xAxis: { type: 'value' as const, name: options.unit, axisLabel: { color: textColour(options.dark) },
      splitLine: { lineStyle: { color: splitColour(options.dark) } } },
    yAxis: { type: 'category' as const, data: shown.map((i) => i.name), axisLabel: { color: textColour(options.dark), interval: 0 } },
    series: [{
      name, type: 'bar' as const, data: shown.map((i) => i.value), barMaxWidth: 18,
      itemStyle: { color: options.colour ?? COLOURS[0], borderRadius: [0, 4, 4, 0] },
      label: { show: true, position: 'right' as const, color: textColour(options.dark) },
    }],
  };
}

/** A distribution as a ring (zero shares left out). */
export function shareOption(items: readonly Ranked[], name: string, options: { dark?: boolean; colours?: string[] } = {}) {
  return {
    animation: false,
    color: options.colours ?? COLOURS,
    tooltip: { trigger: 'item' as const, formatter: '{b}: {c} ({d}%)' },
    legend: { type: 'scroll' as const, bottom: 0, textStyle: { color: textColour(options.dark) } },
    series: [{
      name, type: 'pie' as const, radius: ['40%', '68%'], center: ['50%', '45%'],
      data: items.filter((i) => i.value > 0).map((i) => (i.colour ? { name: i.name, value: i.value, itemStyle: { color: i.colour } } : { name: i.name, value: i.value })),
      label: { color: textColour(options.dark), formatter: '{b}\n{d}%' },
    }],
  };
}

/** Labels of day keys as the charts show them: 20261015 -> "10-15". */
export function dayLabels(days: readonly number[]): string[] {
  return days.map((d) => `${String(Math.floor(d / 100) % 100).padStart(2, '0')}-${String(d % 100).padStart(2, '0')}`);
}

/** Labels of month keys: 202610 -> "2026-10". */
export function monthLabels(months: readonly number[]): string[] {
  return months.map((m) => `${Math.floor(m / 100)}-${String(m % 100).padStart(2, '0')}`);
}

/** Histogram buckets of values: [lower bounds], counts per bucket (the last open-ended). */
export function histogram(values: readonly number[], bounds: readonly number[]): number[] {
  const counts = bounds.map(() => 0);
  for (const v of values) {
    let i = bounds.length - 1;
    while (i > 0 && v < bounds[i]) i -= 1;
    counts[i] += 1;
  }
  return counts;
}

/** Bucket labels of histogram bounds: "0-20", "20-40", ..., "120+". */
export function bucketLabels(bounds: readonly number[]): string[] {
  return bounds.map((b, i) => (i === bounds.length - 1 ? `${b}+` : `${b}-${bounds[i + 1]}`));
}
