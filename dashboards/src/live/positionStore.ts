/**
 * Latest position per device, outside React. The map's marker layer subscribes and moves markers
 * imperatively; a popup subscribes for its one device. Nothing here triggers a React render.
 */
import type { LivePosition } from './types';

export type PositionListener = (changed: readonly LivePosition[]) => void;

/** The REST last-position reply (GET /api/gps/device/{id}/last.json). */
export interface RestLastPosition {
  deviceId: number;
  carId: number | null;
  time: string;
  lng: number;
  lat: number;
  direction?: number | null;
  speed?: number | null;
  mileage?: number | null;
  oilmass?: number | null;
  altitude?: number | null;
  acc?: number | null;
  alarmType?: number | null;
  alarm?: number | null;
  bizState?: number | null;
}

function parseTime(time: string): number {
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? 0 : ms;
}

/** A REST row as a live position; `bizState` falls back to `fallbackBizState` (REST has none). */
export function fromRest(row: RestLastPosition, fallbackBizState: number): LivePosition {
  return {
    deviceId: row.deviceId,
    carId: row.carId,
    lng: row.lng,
    lat: row.lat,
    direction: row.direction ?? 0,
    speed: row.speed ?? 0,
    time: row.time,
    timeMs: parseTime(row.time),
    bizState: row.bizState ?? fallbackBizState,
    acc: row.acc ?? 0,
    alarm: row.alarmType ?? row.alarm ?? 0,
    mileage: row.mileage ?? null,
    oilmass: row.oilmass ?? null,
    altitude: row.altitude ?? null,
  };
}

export function hasFix(p: { lng: number | null | undefined; lat: number | null | undefined }): boolean {
  return typeof p.lng === 'number' && typeof p.lat === 'number' && Number.isFinite(p.lng) && Number.isFinite(p.lat);
}

export class PositionStore {
  private readonly byDevice = new Map<number, LivePosition>();
  private readonly listeners = new Set<PositionListener>();

  get(deviceId: number): LivePosition | undefined {
    return this.byDevice.get(deviceId);
  }

  size(): number {
    return this.byDevice.size;
  }

  all(): IterableIterator<LivePosition> {
    return this.byDevice.values();
  }

  /**
   * Merges positions, keeping the newer fix per device (an older one never moves a marker back).
   * REST extras (mileage, altitude, fuel) survive a later push that lacks them. Notifies once.
   */
  apply(batch: readonly LivePosition[]): LivePosition[] {
    const changed: LivePosition[] = [];
    for (const incoming of batch) {
      if (!hasFix(incoming)) continue;
      const current = this.byDevice.get(incoming.deviceId);
      if (current && incoming.timeMs < current.timeMs) continue;
      const merged: LivePosition = current
        ? {
            ...incoming,
            mileage: incoming.mileage ?? current.mileage,
            oilmass: incoming.oilmass ?? current.oilmass,
            altitude: incoming.altitude ?? current.altitude,
          }
        : incoming;
      this.byDevice.set(incoming.deviceId, merged);
      changed.push(merged);
    }
    if (changed.length > 0) for (const listener of this.listeners) listener(changed);
    return changed;
  }

  subscribe(listener: PositionListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  clear(): void {
    this.byDevice.clear();
  }
}
