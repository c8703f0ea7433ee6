/** The replay's time range: the presets and the page's `?start=&end=` query. Pure. */
import dayjs from 'dayjs';
import type { TrackRange } from './api';

export type RangePreset = 'today' | 'yesterday' | 'last3days';

/** The range a preset names, at `now` (local days): today so far, all of yesterday, the last 3 days. */
export function presetRange(preset: RangePreset, now = dayjs()): TrackRange {
  const today = now.startOf('day');
  if (preset === 'yesterday') return { start: today.subtract(1, 'day').valueOf(), end: today.valueOf() - 1 };
  if (preset === 'last3days') return { start: today.subtract(2, 'day').valueOf(), end: now.valueOf() };
  return { start: today.valueOf(), end: now.valueOf() };
}

/** `?start=&end=` (epoch ms; ISO 8601 accepted too); a missing bound is today's. */
export function rangeFromQuery(params: URLSearchParams, now = dayjs()): TrackRange {
  const read = (name: string) => {
    const raw = params.get(name);
    if (!raw) return null;
    const value = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
    return Number.isFinite(value) ? value : null;
  };
  const today = presetRange('today', now);
  const start = read('start') ?? today.start;
  const end = read('end') ?? Math.max(start, today.end);
  return { start, end };
}
