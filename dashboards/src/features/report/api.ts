/**
 * The report calls (docs/reports.md "The API contract"; api/routes/reports.py) through the one API client.
 * Report days go to the sum calls as `startDate` / `endDate`; the list's body carries them as
 * `date.gte` / `date.lte` (the day filter), so `rangeOf` moves them over.
 */
import { http } from '../../api/client';
import type { ApiReply } from '../../api/types';
import type { ListPageReply, ListRecord } from '../list/types';

export type Params = Record<string, string | number | boolean | null | undefined>;
export type Body = Record<string, unknown>;

/** The day range of a list body (`date.gte` / `date.lte`) as the sum calls' parameters, and the rest. */
export function rangeOf(body: Body): { startDate?: number; endDate?: number; rest: Body } {
  const { 'date.gte': gte, 'date.lte': lte, ...rest } = body;
  return { startDate: gte as number | undefined, endDate: lte as number | undefined, rest };
}

/** The scope parameters of the list (isParent) that the report calls also take. */
function scopeOf(params: Params): Params {
  return { isParent: params.isParent, enterpriseId: params.enterpriseId };
}

/** POST /api/report/car/dayReport/sum.json with `group`: one row of sums per group value. */
export function daySums(group: string, select: string[], body: Body, params: Params, signal?: AbortSignal) {
  const { startDate, endDate, rest } = rangeOf(body);
  return http.post<ListRecord[]>('/api/report/car/dayReport/sum.json', {
    params: { ...scopeOf(params), startDate, endDate, group, select: select.join(',') }, body: rest, signal, quiet: true,
  });
}

/** POST /api/report/car/dayReport/page/sum.json: the grouped sums paged (with days and activeDays). */
export function pageSums(group: string, select: string[], page: Params, body: Body, signal?: AbortSignal) {
  const { startDate, endDate, rest } = rangeOf(body);
  return http.post<ListPageReply>('/api/report/car/dayReport/page/sum.json', {
    params: { ...scopeOf(page), startDate, endDate, group, select: select.join(','), pageNo: page.pageNo, pageSize: page.pageSize },
    body: rest, signal,
  });
}

/** POST /api/report/addAndSum/car_month_report.json: month rows summed per group, and in total. */
export function monthSums(group: string, sum: string[], body: Body, params: Params, signal?: AbortSignal) {
  return http.post<{ list: ListRecord[]; sum: Record<string, number | null> }>('/api/report/addAndSum/car_month_report.json', {
    params: { ...scopeOf(params), group, sum: sum.join(',') }, body, signal, quiet: true,
  });
}

export interface KpiRow extends ListRecord {
  enterpriseId?: number;
  enterpriseName?: string;
}

/** The report calls' scope of the list's enterprise filter: the chosen enterprise (`enterpriseId`), with its
 * subsidiaries (`isParent`) when the filter took its subtree; the caller's whole tree without a choice. */
export function enterpriseScope(body: Body): Params {
  const subtree = body['enterpriseId.in'];
  if (Array.isArray(subtree) && subtree.length) return { enterpriseId: Number(subtree[0]), isParent: true };
  const one = body['enterpriseId.eq'];
  if (one !== undefined && one !== null) return { enterpriseId: Number(one), isParent: false };
  return { isParent: true };
}

/** GET /api/report/kpi/enterprise.json: the regulator KPIs over the days, in total and per enterprise. */
export function kpiPeriod(startDate: number, endDate: number, params: Params, signal?: AbortSignal) {
  return http.get<{ summary: KpiRow; list: KpiRow[] }>('/api/report/kpi/enterprise.json', {
    params: { ...scopeOf(params), startDate, endDate }, signal,
  });
}

export interface AllRows {
  rows: ListRecord[];
  /** More rows matched than were fetched (`maxRows`). */
  truncated: boolean;
}

/** Every row of an entity matching the body, page after page (the API's page maximum), up to `maxRows`. */
export async function queryAll(entity: string, params: Params, body: Body, options: { select?: string[]; maxRows?: number;
  orderBy?: string; signal?: AbortSignal } = {}): Promise<AllRows> {
  const maxRows = options.maxRows ?? 5000;
  const rows: ListRecord[] = [];
  for (let pageNo = 1; rows.length < maxRows; pageNo += 1) {
    const reply: ApiReply<ListPageReply> = await http.post<ListPageReply>(`/api/common/query/${entity}.json`, {
      params: { ...params, pageNo, pageSize: 1000, countable: false, select: options.select?.join(','), orderBy: options.orderBy },
      body, signal: options.signal, quiet: true,
    });
    if (reply.code !== 0 || !reply.data) break;
    rows.push(...reply.data.list);
    if (reply.data.list.length < 1000) return { rows, truncated: false };
  }
  return { rows: rows.slice(0, maxRows), truncated: rows.length >= maxRows };
}
