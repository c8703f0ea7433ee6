/**
 * How a field's value is shown: the server's one definition per field (FieldSpec.display, sent in the
 * entity's meta; api/query/display.py applies the same names and rules to the spreadsheet export), so a
 * table, its browser-written export and the server's export read alike.
 */
import dayjs from 'dayjs';
import type { FieldMeta } from './types';

export type Display = 'day' | 'month' | 'duration' | 'decimal' | 'percent' | 'flag';

const num = (value: unknown): number | null => {
  if (value === null || value === undefined || value === '' || typeof value === 'boolean') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
};

/** A report day 20261130 as "2026-11-30" (anything else as it is). */
export function dayText(key: unknown): string {
  const n = Number(key);
  if (!Number.isInteger(n) || n < 10000101) return String(key ?? '');
  return `${Math.floor(n / 10000)}-${String(Math.floor(n / 100) % 100).padStart(2, '0')}-${String(n % 100).padStart(2, '0')}`;
}

/** 202610 -> "2026-10". */
export function monthText(key: unknown): string {
  const n = Number(key);
  if (!Number.isInteger(n) || n < 100001) return String(key ?? '');
  return `${Math.floor(n / 100)}-${String(n % 100).padStart(2, '0')}`;
}

/** Seconds as "1:02:03" (hours may exceed 24 in range sums); empty for no value. */
export function clock(seconds: unknown): string {
  const n = num(seconds);
  if (n === null) return '';
  const total = Math.max(0, Math.round(n));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
}

/** Kilometres, speeds and averages with two decimals at most, rounded half up ("316.6", not 316.6000000000058). */
export function decimalText(value: unknown): string {
  const n = num(value);
  return n === null ? '' : String(Math.round(n * 100) / 100);
}

/** A ratio (0..1) as "12.34%"; "-" when there is none. */
export function percentText(ratio: unknown): string {
  const n = num(ratio);
  return n === null ? '-' : `${(n * 100).toFixed(2)}%`;
}

/** A value as a field's display shows it; null when the field has no display. */
export function displayText(display: string | null | undefined, value: unknown): string | null {
  switch (display) {
    case 'day': return value === null || value === undefined ? '' : dayText(value);
    case 'month': return value === null || value === undefined ? '' : monthText(value);
    case 'duration': return clock(value);
    case 'decimal': return decimalText(value);
    case 'percent': return percentText(value);
    case 'flag': return value === null || value === undefined ? '' : value ? '✓' : '✗';
    default: return null;
  }
}

/** A value as the table shows it: its display, an enum's label, a time in the browser's zone, ✓/✗. */
export function cellText(field: Pick<FieldMeta, 'type' | 'enum'> & { display?: string | null }, value: unknown,
  label: (value: unknown) => string): string {
  if (value === null || value === undefined) return '';
  const shown = displayText(field.display, value);
  if (shown !== null) return shown;
  if (field.enum) return label(value);
  if (field.type === 'time') return dayjs(String(value)).format('YYYY-MM-DD HH:mm:ss');
  if (field.type === 'bool') return value ? '✓' : '✗';
  return String(value);
}
