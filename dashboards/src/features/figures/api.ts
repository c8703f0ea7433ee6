/**
 * The fleet's figures (GET /api/fleet/figures.json): online, alarming, today's mileage, today's alarms and
 * unhandled, each defined once on the server (warehouse/queries/fleet_figures.py) and read by every screen
 * that shows them (the dashboard and the cockpits), at one cadence, so they never disagree.
 */
import { http } from '../../api/client';

/** The dashboard and the cockpits re-read the figures this often (the same moment on both). */
export const FIGURES_REFRESH_MS = 15_000;

export interface RankedCar {
  carId: number;
  plateNumber: string;
  km: number;
}

export interface FleetFigures {
  total: number;
  online: number;
  offline: number;
  running: number;
  parking: number;
  flameout: number;
  noSignal: number;
  /** Online vehicles whose last fix carries an alarm bit. */
  alarming: number;
  todayMileageKm: number;
  topToday: RankedCar[];
  /** null: the caller may not read alarms (or the figures are of one vehicle type). */
  todayAlarms: number | null;
  unhandled: number | null;
  /** The moment of the figures (epoch ms). */
  at: number;
}

const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : Number(value) || 0);
const orNull = (value: unknown): number | null => (value === null || value === undefined ? null : num(value));

export function toFigures(data: Record<string, unknown>): FleetFigures {
  const top = Array.isArray(data.topToday) ? data.topToday as Record<string, unknown>[] : [];
  return {
    total: num(data.total), online: num(data.online), offline: num(data.offline), running: num(data.running),
    parking: num(data.parking), flameout: num(data.flameout), noSignal: num(data.noSignal), alarming: num(data.alarming),
    todayMileageKm: num(data.todayMileageKm),
    topToday: top.map((r) => ({ carId: num(r.carId), plateNumber: String(r.plateNumber ?? r.carId ?? ''), km: num(r.km) })),
    todayAlarms: orNull(data.todayAlarms), unhandled: orNull(data.unhandled), at: num(data.at),
  };
}

/** The figures of the caller's tree (only vehicles of energy `type` when given); null when the call failed. */
export async function fetchFleetFigures(signal?: AbortSignal, type?: number): Promise<FleetFigures | null> {
  const reply = await http.get<Record<string, unknown> | null>('/api/fleet/figures.json', {
    params: type === undefined ? {} : { type }, signal, quiet: true,
  });
  if (signal?.aborted || reply.code !== 0 || !reply.data) return null;
  return toFigures(reply.data);
}
