/**
 * The alarm dashboard's figures (platform-spec §2 dashboard alarm, console-spec §1): the range's alarms by level,
 * handled / unhandled, the trend per hour (today) or day, the top vehicles and enterprises
 * (GET /api/dashboard/alarmBoard.json), beside the dashboard index's alarm counts (GET /api/dashboard/alarmCounts.json:
 * by type, vehicles with alarms, the bell's unhandled): one figure per concept, the range's total is the sum by type.
 */
import { http } from '../../../api/client';
import type { AlarmCounts, CountRange } from '../../alarm/api';

export interface Ranked {
  count: number;
  unhandled: number;
}

export interface AlarmBoard {
  total: number;
  unhandled: number;
  handled: number;
  byLevel: { level: number | null; count: number }[];
  trend: { at: string; count: number }[];
  topVehicles: (Ranked & { carId: number; plateNumber: string })[];
  topEnterprises: (Ranked & { enterpriseId: number; enterpriseName: string })[];
}

const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : Number(value) || 0);
const rows = (value: unknown): Record<string, unknown>[] => (Array.isArray(value) ? value as Record<string, unknown>[] : []);

export function toAlarmBoard(data: Record<string, unknown>): AlarmBoard {
  return {
    total: num(data.total),
    unhandled: num(data.unhandled),
    handled: num(data.handled),
    byLevel: rows(data.byLevel).map((r) => ({ level: r.level === null || r.level === undefined ? null : num(r.level), count: num(r.count) })),
    trend: rows(data.trend).map((r) => ({ at: String(r.at ?? ''), count: num(r.count) })),
    topVehicles: rows(data.topVehicles).map((r) => ({
      carId: num(r.carId), plateNumber: String(r.plateNumber ?? r.carId ?? ''), count: num(r.count), unhandled: num(r.unhandled),
    })),
    topEnterprises: rows(data.topEnterprises).map((r) => ({
      enterpriseId: num(r.enterpriseId), enterpriseName: String(r.enterpriseName ?? r.enterpriseId ?? ''),
      count: num(r.count), unhandled: num(r.unhandled),
    })),
  };
}

/** The board of the range; null when the call failed. */
export async function fetchAlarmBoard(range: CountRange, signal?: AbortSignal): Promise<AlarmBoard | null> {
  const reply = await http.get<Record<string, unknown> | null>('/api/dashboard/alarmBoard.json', { params: { range }, signal, quiet: true });
  if (signal?.aborted || reply.code !== 0 || !reply.data) return null;
  return toAlarmBoard(reply.data);
}

/** A trend bucket as the chart's axis shows it: "2026-12-03 13:00" -> "13:00", "2026-12-03" -> "12-03". */
export function bucketLabel(at: string): string {
  const hour = /^\d{4}-\d{2}-\d{2} (\d{2}:\d{2})$/.exec(at);
  if (hour) return hour[1];
  const day = /^\d{4}-(\d{2}-\d{2})$/.exec(at);
  return day ? day[1] : at;
}

/** The range's alarms by type (the dashboard index's figure); their sum is the board's total. */
export function totalByType(counts: Pick<AlarmCounts, 'byType'> | null): number {
  return counts ? counts.byType.reduce((sum, row) => sum + row.count, 0) : 0;
}

/** The share of handled alarms in percent, one decimal (0 when there are none). */
export function handledRate(board: Pick<AlarmBoard, 'total' | 'handled'> | null): number {
  return board && board.total > 0 ? Math.round((board.handled / board.total) * 1000) / 10 : 0;
}
