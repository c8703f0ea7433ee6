/**
 * Chart loaders of the report screens: each reads the figures of the list's current filters from the
 * report calls (sums per day or per vehicle on the server; counters summed here over matching rows) and
 * answers the panel's charts.
 */
import type { TFunction } from 'i18next';
import type { ListRecord, ListView } from '../../list/types';
import { counterStats, daysBetween, groupRows, monthsBetween, perDay, round, topN } from '../aggregate';
import { daySums, monthSums, queryAll, rangeOf } from '../api';
import type { ChartLoader, PanelChart } from './ChartPanel';
import { dayLabels, monthLabels, rankingOption, shareOption, trendOption, type SeriesSpec } from './options';

const num = (value: unknown): number => (Number.isFinite(Number(value)) ? Number(value) : 0);

/** The days of the list's day filter (none: no chart). */
export function daysOf(view: ListView): number[] {
  const { startDate, endDate } = rangeOf(view.body);
  return startDate && endDate ? daysBetween(startDate, endDate) : [];
}

export interface DayTrendSpec {
  key: string;
  title: string;
  /** Summed fields and how each is drawn (value: the per-day sum -> the plotted number). */
  series: { field: string; name: string; type?: 'bar' | 'line'; stack?: string; yAxisIndex?: 0 | 1; value?: (sum: number) => number }[];
  units?: [string, string?];
  span?: number;
}

export interface RankingSpec {
  key: string;
  title: string;
  field: string;
  value?: (sum: number) => number;
  unit?: string;
  n?: number;
  span?: number;
}

/** Trends over the days (sums per day) and rankings of vehicles (sums per vehicle), from dayReport/sum. */
export function daySumsLoader(trends: DayTrendSpec[], rankings: RankingSpec[] = []): ChartLoader {
  return async (view, signal) => {
    const days = daysOf(view);
    if (days.length === 0) return [];
    const trendFields = [...new Set(trends.flatMap((t) => t.series.map((s) => s.field)))];
    const rankFields = [...new Set(rankings.map((r) => r.field))];
    const [byDay, byCar] = await Promise.all([
      trendFields.length ? daySums('date', trendFields, view.body, view.params, signal) : null,
      rankFields.length ? daySums('carId', rankFields, view.body, view.params, signal) : null,
    ]);
    const dayRows = byDay?.code === 0 ? byDay.data ?? [] : [];
    const carRows = byCar?.code === 0 ? byCar.data ?? [] : [];
    const charts: PanelChart[] = trends.map((trend) => {
      const series: SeriesSpec[] = trend.series.map((s) => ({
        name: s.name, type: s.type, stack: s.stack, yAxisIndex: s.yAxisIndex,
        data: perDay(dayRows, days, s.field).map((v) => round(s.value ? s.value(v) : v, 2)),
      }));
      return { key: trend.key, title: trend.title, span: trend.span, points: dayRows.length,
        option: trendOption({ categories: dayLabels(days), series, units: trend.units, zoomAbove: 31 }) };
    });
    for (const ranking of rankings) {
      const items = topN(carRows.map((r) => ({ name: String(r.plateNumber ?? r.carId), value: round(ranking.value ? ranking.value(num(r[ranking.field])) : num(r[ranking.field]), 2) }))
        .filter((i) => i.value > 0), ranking.n ?? 10);
      charts.push({ key: ranking.key, title: ranking.title, span: ranking.span, points: items.length,
        option: rankingOption(items, ranking.title, { unit: ranking.unit }) });
    }
    return charts;
  };
}

/** Month trends from the month rows summed per month (addAndSum/car_month_report). */
export function monthSumsLoader(trend: DayTrendSpec): ChartLoader {
  return async (view, signal) => {
    const first = Number(view.body['month.gte']);
    const last = Number(view.body['month.lte']);
    if (!first || !last) return [];
    const fields = trend.series.map((s) => s.field);
    const reply = await monthSums('month', fields, view.body, view.params, signal);
    const rows = reply.code === 0 ? reply.data?.list ?? [] : [];
    const months = monthsBetween(first, last);
    const series = trend.series.map((s) => ({
      name: s.name, type: s.type, yAxisIndex: s.yAxisIndex,
      data: perDay(rows, months, s.field, 'month').map((v) => round(s.value ? s.value(v) : v, 2)),
    }));
    return [{ key: trend.key, title: trend.title, points: rows.length, span: 24,
      option: trendOption({ categories: monthLabels(months), series, units: trend.units }) }];
  };
}

/** Every matching row of an entity, fetched for a chart (capped; the panel says when it was cut). */
export async function rowsFor(entity: string, view: ListView, select: string[], signal: AbortSignal, maxRows = 10000) {
  return queryAll(entity, { isParent: view.params.isParent as boolean | undefined }, view.body, { select, maxRows, signal });
}

/** Per-day trends and group rankings summed here over an entity's rows (driver, enterprise tables). */
export function entityRowsLoader(entity: string, options: {
  dayField?: string;
  trends: { key: string; title: string; series: { field: string; name: string; type?: 'bar' | 'line'; yAxisIndex?: 0 | 1; value?: (v: number) => number }[]; units?: [string, string?] }[];
  ranking?: { key: string; title: string; by: string; name: string; field: string; value?: (v: number) => number; unit?: string };
  months?: boolean;
}): ChartLoader {
  return async (view, signal) => {
    const dayField = options.dayField ?? (options.months ? 'month' : 'date');
    const first = Number(view.body[`${dayField}.gte`]);
    const last = Number(view.body[`${dayField}.lte`]);
    if (!first || !last) return [];
    const keys = options.months ? monthsBetween(first, last) : daysBetween(first, last);
    const fields = [...new Set([...options.trends.flatMap((t) => t.series.map((s) => s.field)), ...(options.ranking ? [options.ranking.field] : [])])];
    const select = [dayField, ...fields, ...(options.ranking ? [options.ranking.by, options.ranking.name] : [])];
    const { rows } = await rowsFor(entity, view, [...new Set(select)], signal);
    const labels = options.months ? monthLabels(keys) : dayLabels(keys);
    const charts: PanelChart[] = options.trends.map((trend) => ({
      key: trend.key, title: trend.title, points: rows.length,
      option: trendOption({ categories: labels, units: trend.units, zoomAbove: 31, series: trend.series.map((s) => ({
        name: s.name, type: s.type, yAxisIndex: s.yAxisIndex,
        data: perDay(rows, keys, s.field, dayField).map((v) => round(s.value ? s.value(v) : v, 2)),
      })) }),
    }));
    if (options.ranking) {
      const r = options.ranking;
      const items = topN(groupRows(rows, r.by, [r.field]).map((g) => ({
        name: String(g.first[r.name] ?? g.key), value: round(r.value ? r.value(g.sums[r.field]) : g.sums[r.field], 2),
      })).filter((i) => i.value > 0), 10);
      charts.push({ key: r.key, title: r.title, points: items.length, option: rankingOption(items, r.title, { unit: r.unit }) });
    }
    return charts;
  };
}

/** Alarm counters of the device day rows: alarms by type (top 10, a ring by family) and per day. */
export function alarmCountersLoader(t: TFunction, keys: readonly string[], totalField = 'alarmTotal'): ChartLoader {
  return async (view, signal) => {
    const days = daysOf(view);
    if (days.length === 0) return [];
    const { rows } = await rowsFor('deviceDayReport', view, ['date', 'carId', totalField, ...keys], signal);
    const stats = counterStats(rows, keys);
    const byType = topN(stats.map((s) => ({ name: alarmName(t, s.key), value: s.count })), 10);
    const total = perDay(rows, days, totalField);
    return [
      { key: 'alarm-trend', title: t('report:chart.alarmTrend'), points: rows.length,
        option: trendOption({ categories: dayLabels(days), series: [{ name: t('report:chart.alarms'), data: total, colour: '#f5222f' }], zoomAbove: 31 }) },
      { key: 'alarm-types', title: t('report:chart.alarmTypes'), points: byType.length,
        option: rankingOption(byType, t('report:chart.alarms'), { colour: '#fa8c16' }) },
    ];
  };
}

/** The name of an alarm key in the user's language (alarmSettings:enums.alarmKey). */
export function alarmName(t: TFunction, key: string): string {
  return t(`alarmSettings:enums.alarmKey.${key}`, { defaultValue: key });
}

/** Active-safety families of the alarm keys (console-spec §3: alarm types 5-8). */
export const SAFETY_FAMILIES = ['adas', 'dsm', 'bsd', 'tpms'] as const;

export function familyOf(key: string): string {
  return key.split('_')[0];
}

/** A ring of alarms per active-safety family. */
export function familyShare(t: TFunction, rows: readonly ListRecord[], keys: readonly string[]) {
  const stats = counterStats(rows, keys);
  const items = SAFETY_FAMILIES.map((family) => ({
    name: t(`report:family.${family}`),
    value: stats.filter((s) => familyOf(s.key) === family).reduce((n, s) => n + s.count, 0),
  }));
  return { option: shareOption(items, t('report:chart.alarms')), points: items.filter((i) => i.value > 0).length };
}
