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
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : text;
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

/**
 * How long ago a fix was taken, for the popup, tree and table ("3 分钟前", "3 minutes ago"): seconds
 * under a minute read "just now", then whole minutes, hours and days (rounded down). '-' without a
 * fix; a fix from the future (a terminal clock ahead) reads "just now".
 */
export function formatAge(timeMs: number | null | undefined, nowMs: number, t: Translate): string {
  if (timeMs === null || timeMs === undefined || !Number.isFinite(timeMs) || timeMs <= 0) return '-';
  const seconds = Math.max(0, Math.floor((nowMs - timeMs) / 1000));
  if (seconds < 60) return t('age.justNow');
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return t('age.minutes', { count: minutes });
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return t('age.hours', { count: hours });
  return t('age.days', { count: Math.floor(hours / 24) });
}
