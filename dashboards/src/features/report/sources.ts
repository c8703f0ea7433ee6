/**
 * Page sources of the report screens whose rows are not one entity's rows (ListScreen.fetchPage):
 * grouped sums from the server (dayReport/page/sum), groups summed here over every matching row of an
 * entity, the monthDataCount pivot, the KPI call. Each answers the list page's `{list, total}`.
 */
import { http } from '../../api/client';
import type { ApiReply } from '../../api/types';
import type { ListPageReply, ListRecord, PageSource } from '../list/types';
import { groupRows, pivotDays } from './aggregate';
import { enterpriseScope, kpiPeriod, pageSums, queryAll, rangeOf, type Body, type Params } from './api';

const ok = (data: ListPageReply): ApiReply<ListPageReply> => ({ code: 0, message: '', data });
const empty = (pageNo: number, pageSize: number) => ok({ list: [], total: 0, pageNo, pageSize });

/** Sorts rows by a field (numbers and text), then cuts the page. */
export function pageOf(rows: readonly ListRecord[], page: { pageNo: number; pageSize: number; orderBy?: string; desc?: boolean },
  fallbackOrder?: string, fallbackDesc = true): ListPageReply {
  const orderBy = page.orderBy ?? fallbackOrder;
  const desc = page.orderBy ? page.desc ?? false : fallbackDesc;
  const sorted = orderBy ? [...rows].sort((a, b) => {
    const x = a[orderBy];
    const y = b[orderBy];
    const cmp = typeof x === 'number' && typeof y === 'number' ? x - y : String(x ?? '').localeCompare(String(y ?? ''));
    return desc ? -cmp : cmp;
  }) : [...rows];
  const start = (page.pageNo - 1) * page.pageSize;
  return { list: sorted.slice(start, start + page.pageSize), total: rows.length, pageNo: page.pageNo, pageSize: page.pageSize };
}

/** Vehicles' (or another group's) sums over the chosen days, paged by the server (the spec's page/sum). */
export function pageSumSource(group: string, select: string[]): PageSource {
  return (page, body, signal) => {
    const { startDate, endDate } = rangeOf(body);
    if (!startDate || !endDate) return Promise.resolve(empty(page.pageNo, page.pageSize));
    return pageSums(group, select, page as Params, body, signal);
  };
}

export interface GroupSourceSpec {
  entity: string;
  /** The field rows are grouped by (driverId, enterpriseId). */
  by: string;
  /** Fields summed per group. */
  sum: string[];
  /** Fields whose distinct values are counted per group (e.g. `date` as days). */
  distinct?: string[];
  /** Fields copied from the group's first row (its names). */
  names: string[];
  /** The order when the user has not sorted. */
  order: string;
  maxRows?: number;
}

/** Groups summed here over every row of an entity matching the filters (at most `maxRows`, fetched once per
 * filter change and kept for paging and sorting). */
export function groupSource(spec: GroupSourceSpec): PageSource {
  let cache: { key: string; rows: ListRecord[] } | null = null;
  return async (page, body, signal) => {
    const key = JSON.stringify([body, page.isParent, page.enterpriseId]);
    if (cache?.key !== key) {
      const all = await queryAll(spec.entity, { isParent: page.isParent as boolean | undefined }, body,
        { select: [spec.by, ...spec.names, ...spec.sum, ...(spec.distinct ?? [])], maxRows: spec.maxRows ?? 20000, signal });
      if (signal?.aborted) return empty(page.pageNo, page.pageSize);
      const rows = groupRows(all.rows, spec.by, spec.sum, spec.distinct).map((g) => ({
        [spec.by]: g.key,
        ...Object.fromEntries(spec.names.map((n) => [n, g.first[n]])),
        ...g.sums,
        ...Object.fromEntries(Object.entries(g.distinct).map(([f, n]) => [`${f}Count`, n])),
        rowCount: g.rows,
      }));
      cache = { key, rows };
    }
    return ok(pageOf(cache.rows, page, spec.order));
  };
}

/** monthDataCount: a page of the month rows, with each vehicle's position count per day of the month
 * (d01..d31) from its day rows. */
export function monthDataCountSource(): PageSource {
  return async (page, body, signal) => {
    const monthReply = await http.post<ListPageReply>('/api/common/query/carMonthReport.json', {
      params: { isParent: page.isParent as boolean | undefined, pageNo: page.pageNo, pageSize: page.pageSize, countable: true,
        orderBy: page.orderBy ?? 'month', desc: page.orderBy ? page.desc : true },
      body, signal,
    });
    if (monthReply.code !== 0 || !monthReply.data) return monthReply;
    const months = monthReply.data.list;
    if (months.length === 0) return monthReply;
    const keys = months.map((m) => Number(m.month));
    const first = Math.min(...keys) * 100 + 1;
    const last = Math.max(...keys) * 100 + 31;
    const days = await queryAll('carDayReport', { isParent: page.isParent as boolean | undefined },
      { 'carId.in': [...new Set(months.map((m) => m.carId))], 'date.gte': first, 'date.lte': last },
      { select: ['carId', 'date', 'points'], maxRows: 40_000, signal });
    const dayRows = days.rows;
    const list = months.map((month) => pivotDays([month], dayRows.filter((d) => Math.floor(Number(d.date) / 100) === Number(month.month)))[0]);
    return ok({ ...monthReply.data, list });
  };
}

/** The KPI screen: the regulator KPIs per enterprise over the chosen days (one call; paged here). */
export function kpiSource(): PageSource {
  let cache: { key: string; rows: ListRecord[] } | null = null;
  return async (page, body: Body, signal) => {
    const { startDate, endDate } = rangeOf(body);
    if (!startDate || !endDate) return empty(page.pageNo, page.pageSize);
    const scope = enterpriseScope(body);
    const key = JSON.stringify([startDate, endDate, scope]);
    if (cache?.key !== key) {
      const reply = await kpiPeriod(startDate, endDate, scope, signal);
      if (reply.code !== 0 || !reply.data) return reply as unknown as ApiReply<ListPageReply>;
      cache = { key, rows: reply.data.list };
    }
    return ok(pageOf(cache.rows, page, 'enterpriseName', false));
  };
}

