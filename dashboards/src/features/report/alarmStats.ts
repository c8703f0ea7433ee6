/** Alarm statistics per type (AlarmTypeStats): the rows summed from the device day rows, kept per filter. */
import type { TFunction } from 'i18next';
import type { ListRecord, PageSource } from '../list/types';
import { counterStats, percent, topN } from './aggregate';
import { rangeOf } from './api';
import type { ChartLoader, PanelChart } from './charts/ChartPanel';
import { alarmName, familyOf, rowsFor, SAFETY_FAMILIES } from './charts/loaders';
import { rankingOption, shareOption } from './charts/options';
import { pageOf } from './sources';

/** The drill-down of a type: its alarms in the chosen days. */
export function detailHref(key: string, body: Record<string, unknown>): string {
  const { startDate, endDate } = rangeOf(body);
  return `/report/alarmOverviewDetail?key=${encodeURIComponent(key)}&startDate=${String(startDate ?? '')}&endDate=${String(endDate ?? '')}`;
}

/** The table's page source and the charts of the alarm types of `keys` (one read of the day rows per filter). */
export function alarmStats(t: TFunction, keys: readonly string[], families: boolean): { source: PageSource; load: ChartLoader } {
  const cache: { key: string; rows: ListRecord[] } = { key: '', rows: [] };
  const statsRows = async (body: Record<string, unknown>, params: Record<string, unknown>, signal?: AbortSignal) => {
    const cacheKey = JSON.stringify([body, params.isParent]);
    if (cache.key !== cacheKey) {
      const view = { body, params: { isParent: params.isParent as boolean | undefined }, rows: [], total: 0 };
      const { rows } = await rowsFor('deviceDayReport', view, ['carId', 'date', ...keys], signal ?? new AbortController().signal, 20000);
      const stats = counterStats(rows, keys);
      const total = stats.reduce((n, s) => n + s.count, 0);
      cache.rows = stats.map((s) => ({ ...s, name: alarmName(t, s.key), share: percent(s.count, total), detail: detailHref(s.key, body) }));
      cache.key = cacheKey;
    }
    return cache.rows;
  };
  const source: PageSource = async (page, body, signal) => {
    const rows = await statsRows(body, page, signal);
    return { code: 0, message: '', data: pageOf(rows, page, 'count') };
  };
  const load: ChartLoader = async (view, signal) => {
    const rows = await statsRows(view.body, view.params, signal);
    const items = topN(rows.map((r) => ({ name: String(r.name), value: Number(r.count) })), 10);
    const charts: PanelChart[] = [{ key: 'types', title: t('chart.alarmTypes'), points: items.length, option: rankingOption(items, t('chart.alarms'), { colour: '#fa8c16' }) }];
    const shares = families
      ? SAFETY_FAMILIES.map((f) => ({ name: t(`family.${f}`), value: rows.filter((r) => familyOf(String(r.key)) === f).reduce((n, r) => n + Number(r.count), 0) }))
      : items;
    charts.push({ key: 'share', title: t(families ? 'chart.families' : 'chart.typeShare'), points: shares.filter((s) => s.value > 0).length,
      option: shareOption(shares, t('chart.alarms')) });
    return charts;
  };
  return { source, load };
}
