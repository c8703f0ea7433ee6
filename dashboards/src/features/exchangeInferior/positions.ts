import type { LivePosition } from '../../live/types';
import type { ListRecord } from '../list/types';

/** An exchange vehicle row as the marker layer's position (id, plate, last fix). */
export function toPosition(row: ListRecord): LivePosition | null {
  const lat = Number(row.lat);
  const lng = Number(row.lng);
  const time = typeof row.lastFixAt === 'string' ? row.lastFixAt : '';
  if (!Number.isFinite(lat) || !Number.isFinite(lng) || !time || row.lat === null || row.lng === null) return null;
  return { deviceId: Number(row.id), carId: null, lat, lng, direction: Number(row.directionDeg) || 0,
    speed: Number(row.speedKmh) || 0, time, timeMs: Date.parse(time), bizState: 1, acc: 0, alarm: Number(row.alarm) || 0 };
}
