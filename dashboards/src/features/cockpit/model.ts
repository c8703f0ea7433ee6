/**
 * The cockpits' figures, pure: the fleet's states now, today's mileage from the live odometers against
 * yesterday's last reading (shared/design/reports.md §8, lingxcom's current odometer minus the previous
 * day's), the 30-day trends with today appended, the board's scale on any screen.
 */
import { BIZ_DRIVING, BIZ_ENGINE_OFF, BIZ_PARKED, isOnlineBizState } from '../../live/bizState';
import type { LivePosition } from '../../live/types';
import type { VehicleState } from '../../live/vehicleStates';

/** The board is laid out for a 1920 × 1080 wall and scaled to the screen it is on. */
export const BOARD_WIDTH = 1920;
export const BOARD_HEIGHT = 1080;

/** How much the board is scaled and where it starts so that it fills the screen, centred, without cropping. */
export function boardScale(width: number, height: number): { scale: number; left: number; top: number } {
  const scale = Math.max(0.1, Math.min(width / BOARD_WIDTH, height / BOARD_HEIGHT));
  return { scale, left: Math.max(0, (width - BOARD_WIDTH * scale) / 2), top: Math.max(0, (height - BOARD_HEIGHT * scale) / 2) };
}

export interface FleetFigures {
  total: number;
  online: number;
  driving: number;
  parked: number;
  engineOff: number;
  offline: number;
  /** Vehicles whose last position carries an alarm bit now. */
  alarming: number;
}

/** The figures of the vehicles (devices) in `devices`, from their live states and positions. */
export function fleetFigures(devices: readonly number[], state: (deviceId: number) => VehicleState | undefined,
  position: (deviceId: number) => Pick<LivePosition, 'alarm'> | undefined): FleetFigures {
  const f: FleetFigures = { total: devices.length, online: 0, driving: 0, parked: 0, engineOff: 0, offline: 0, alarming: 0 };
  for (const deviceId of devices) {
    const s = state(deviceId);
    const online = !!s?.online && isOnlineBizState(s.bizState);
    if (!online) f.offline += 1;
    else {
      f.online += 1;
      if (s?.bizState === BIZ_DRIVING) f.driving += 1;
      else if (s?.bizState === BIZ_PARKED) f.parked += 1;
      else if (s?.bizState === BIZ_ENGINE_OFF) f.engineOff += 1;
    }
    if (online && (position(deviceId)?.alarm ?? 0) !== 0) f.alarming += 1;
  }
  return f;
}

/** Most a vehicle is believed to drive in a day; a larger odometer delta is a reset or a terminal swap. */
export const MAX_DAY_KM = 2000;

/** Today's km per vehicle: its live odometer minus yesterday's last reading (none, negative or implausible: 0). */
export function todayKm(positions: readonly Pick<LivePosition, 'carId' | 'mileage'>[], yesterdayOdo: ReadonlyMap<number, number>): Map<number, number> {
  const out = new Map<number, number>();
  for (const p of positions) {
    if (p.carId === null || p.mileage === null || p.mileage === undefined) continue;
    const before = yesterdayOdo.get(p.carId);
    if (before === undefined) continue;
    const km = p.mileage - before;
    out.set(p.carId, km > 0 && km <= MAX_DAY_KM ? Math.round(km * 10) / 10 : 0);
  }
  return out;
}

/** A trend of past days (from the report rollups) with today's live value appended. */
export function withToday(days: readonly number[], past: readonly number[], today: number): { days: number[]; values: number[] } {
  return { days: [...days], values: [...past.slice(0, days.length - 1), today] };
}
