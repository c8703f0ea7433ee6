/** Pure helpers of the alarm list screens: states and links. */
import dayjs from 'dayjs';
import type { ListRecord } from '../list/types';

/** `state`: 0 unhandled; else the handling state chosen (console-spec §4). */
const UNHANDLED = 0;

/** Minutes of track shown before the alarm starts and after it ends. */
export const TRACK_MARGIN_MIN = 5;

/** The id of an alarm row (`id`, or the spec's `_id`). */
export function alarmId(record: ListRecord): string {
  return String(record.id ?? record._id ?? '');
}

/** The detail screen of a row: `/list/alarmDetail?id=` (or the safety alarm variant). */
export function detailHref(route: 'alarmDetail' | 'safetyAlarmDetail', record: ListRecord): string {
  return `/list/${route}?id=${encodeURIComponent(alarmId(record))}`;
}

function epochMs(value: unknown): number | null {
  if (value === null || value === undefined || value === '') return null;
  const parsed = typeof value === 'number' ? dayjs(value) : dayjs(String(value));
  return parsed.isValid() ? parsed.valueOf() : null;
}

/** The track replay of the alarm's vehicle around it (`/dashboard/trace?carId=&start=&end=`, epoch ms):
 * from a few minutes before its start to a few minutes after its end (its start when still open or
 * instantaneous). null when the alarm has no vehicle or no start. */
export function trackHref(record: ListRecord, marginMin = TRACK_MARGIN_MIN): string | null {
  const carId = Number(record.carId);
  const start = epochMs(record.startTime);
  if (!Number.isSafeInteger(carId) || carId <= 0 || start === null) return null;
  const end = epochMs(record.endTime) ?? start;
  const margin = marginMin * 60_000;
  return `/dashboard/trace?carId=${carId}&start=${start - margin}&end=${Math.max(end, start) + margin}`;
}

/** Whether the row can still be handled or ignored (only unhandled ones). */
export function isUnhandled(record: ListRecord): boolean {
  return Number(record.state ?? UNHANDLED) === UNHANDLED;
}
