/** The dashboard counters: the fleet's figures (GET /api/fleet/figures.json, the one definition the cockpits
 * and the map read too) and today's online total (platform-spec §7 enterprise reports). */
import { http } from '../../api/client';
import { fetchFleetFigures } from '../figures/api';

export interface BizStateCounts {
  running: number;
  parking: number;
  flameout: number;
  noSignal: number;
  offline: number;
  /** Cars in scope; the sum of the five when the API leaves it out. */
  total: number;
}

/** Today's figures beside the states (null: the caller may not read alarms). */
export interface TodayFigures {
  alarming: number;
  todayMileageKm: number;
  todayAlarms: number | null;
  unhandled: number | null;
}

export interface DashboardCounts extends BizStateCounts, TodayFigures {
  /** Online now: every state but offline (the API counts the four online states for online devices only). */
  online: number;
  /** Online now or at some point since midnight (UTC+8). */
  todayOnline: number;
}

const REPORT_PARAMS = { countable: false };

/** A report row, whether the endpoint answers the object itself or a page of one row. */
function firstRow<T>(data: T | { list?: T[] } | null | undefined): T | null {
  if (!data) return null;
  if (typeof data === 'object' && 'list' in data && Array.isArray(data.list)) return data.list[0] ?? null;
  return data as T;
}

const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : Number(value) || 0);

export function toCounts(biz: (Partial<BizStateCounts> & Partial<TodayFigures>) | null, today: { total?: number } | null): DashboardCounts | null {
  if (!biz) return null;
  const running = num(biz.running);
  const parking = num(biz.parking);
  const flameout = num(biz.flameout);
  const noSignal = num(biz.noSignal);
  const offline = num(biz.offline);
  const online = running + parking + flameout + noSignal;
  const total = biz.total === undefined ? online + offline : num(biz.total);
  const orNull = (value: number | null | undefined) => (value === null || value === undefined ? null : num(value));
  return {
    running, parking, flameout, noSignal, offline, total, online, todayOnline: num(today?.total),
    alarming: num(biz.alarming), todayMileageKm: num(biz.todayMileageKm), todayAlarms: orNull(biz.todayAlarms), unhandled: orNull(biz.unhandled),
  };
}

export async function fetchDashboardCounts(signal?: AbortSignal): Promise<DashboardCounts | null> {
  const [figures, today] = await Promise.all([
    fetchFleetFigures(signal),
    http.post<{ total?: number } | { list?: { total?: number }[] }>('/api/common/query/enterpriseTodayOnlineCarReport.json', {
      params: REPORT_PARAMS,
      body: {},
      signal,
    }),
  ]);
  if (signal?.aborted || !figures) return null;
  return toCounts(figures, today.code === 0 ? firstRow(today.data) : null);
}
