/**
 * The dispatch (出车) dashboard's figures (platform-spec §2 dashboard ship). fleetwatch has no dispatch plan, so a
 * vehicle is "out" on a day when its day row says so (car_day_report.active: its mileage that day reached
 * FLEET_REPORT_ACTIVE_DAY_KM, the reports' 出车 rule) and "idle" when it did not; trips, mileage and driving time are the day rows' sums
 * (POST /api/report/car/dayReport/sum.json grouped by date: `days` = vehicles with a row, `activeDays` = vehicles
 * out); the fleet and its states now are the fleet figures every screen shows (features/figures).
 */
import { http } from '../../../api/client';
import { rangeDays, type RunningRange } from '../runningRange';

export const SHIP_SUMS = ['mileageKm', 'trips', 'driveS'] as const;

export interface ShipDay {
  /** yyyymmdd */
  date: number;
  /** Vehicles out (active) that day. */
  out: number;
  mileageKm: number;
  trips: number;
  driveS: number;
}

export interface OutVehicle {
  carId: number;
  plateNumber: string;
  mileageKm: number;
  trips: number;
  driveS: number;
  /** The first ignition of the day (epoch ms or ISO text), the vehicle's start: 出车时间. */
  firstAccOnAt: number | string | null;
}

const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : Number(value) || 0);

export function toShipDays(rows: unknown): ShipDay[] {
  if (!Array.isArray(rows)) return [];
  return (rows as Record<string, unknown>[])
    .map((r) => ({ date: num(r.date), out: num(r.activeDays), mileageKm: num(r.mileageKm), trips: num(r.trips), driveS: num(r.driveS) }))
    .sort((a, b) => a.date - b.date);
}

/** Every day of the range, 0 where no vehicle has a row yet (a chart without holes). */
export function fillDays(days: readonly ShipDay[], startDate: number, endDate: number): ShipDay[] {
  const byDate = new Map(days.map((d) => [d.date, d]));
  const filled: ShipDay[] = [];
  const toDate = (key: number) => new Date(Math.floor(key / 10000), Math.floor(key / 100) % 100 - 1, key % 100);
  for (let at = toDate(startDate); ; at = new Date(at.getFullYear(), at.getMonth(), at.getDate() + 1)) {
    const key = at.getFullYear() * 10000 + (at.getMonth() + 1) * 100 + at.getDate();
    if (key > endDate) break;
    filled.push(byDate.get(key) ?? { date: key, out: 0, mileageKm: 0, trips: 0, driveS: 0 });
  }
  return filled;
}

/** Vehicles out of the fleet in percent, one decimal; the idle ones are the rest of the fleet. */
export function dispatch(out: number, fleet: number): { rate: number; idle: number } {
  return { rate: fleet > 0 ? Math.round((out / fleet) * 1000) / 10 : 0, idle: Math.max(fleet - out, 0) };
}

/** The range's days, per day. */
export async function fetchShipDays(range: RunningRange, signal?: AbortSignal): Promise<ShipDay[] | null> {
  const { startDate, endDate } = rangeDays(range);
  const reply = await http.post<unknown>('/api/report/car/dayReport/sum.json', {
    params: { startDate, endDate, group: 'date', select: SHIP_SUMS.join(',') }, body: {}, signal, quiet: true,
  });
  if (signal?.aborted || reply.code !== 0) return null;
  return fillDays(toShipDays(reply.data), startDate, endDate);
}

/** Today's vehicles out, the longest distance first. */
export async function fetchOutToday(size: number, signal?: AbortSignal): Promise<OutVehicle[] | null> {
  const { endDate } = rangeDays('today');
  const reply = await http.post<{ list?: Record<string, unknown>[] } | null>('/api/common/query/carDayReport.json', {
    params: { pageNo: 1, pageSize: size, orderBy: 'mileageKm', desc: true, countable: false },
    body: { 'date.eq': endDate, 'active.eq': true }, signal, quiet: true,
  });
  if (signal?.aborted || reply.code !== 0) return null;
  return (reply.data?.list ?? []).map((r) => ({
    carId: num(r.carId), plateNumber: String(r.plateNumber ?? r.carId ?? ''), mileageKm: num(r.mileageKm), trips: num(r.trips),
    driveS: num(r.driveS), firstAccOnAt: (r.firstAccOnAt as number | string | null | undefined) ?? null,
  }));
}
