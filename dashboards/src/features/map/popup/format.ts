/** Formatting shared by the vehicle popup and the track point popup. Pure. */
import dayjs from 'dayjs';
import { TRACK_ALARM_MAX_CHARS } from '../model/constants';

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** Names of the set JT/T 808 alarm bits (a0..a31), in bit order. */
export function alarmBitNames(mask: number | null | undefined, t: Translate): string[] {
  if (!mask) return [];
  const bits = mask >>> 0;
  const names: string[] = [];
  for (let bit = 0; bit < 32; bit += 1) {
    if (((bits >>> bit) & 1) === 1) names.push(t(`alarmBits.${bit}`));
  }
  return names;
}

/** The alarm text cut to 35 characters plus an ellipsis (console-spec §2 track point popup). */
export function truncateAlarm(text: string, max = TRACK_ALARM_MAX_CHARS): string {
  const chars = Array.from(text);
  return chars.length > max ? `${chars.slice(0, max).join('')}...` : text;
}

export function formatTime(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '-';
  const d = dayjs(value);
  return d.isValid() ? d.format('YYYY-MM-DD HH:mm:ss') : '-';
}

export function formatNumber(value: number | null | undefined, digits = 1): string | null {
  if (value === null || value === undefined || !Number.isFinite(value)) return null;
  return Number(value.toFixed(digits)).toString();
}

export function formatCoordinate(lng: number, lat: number): string {
  return `${lng.toFixed(6)}, ${lat.toFixed(6)}`;
}
