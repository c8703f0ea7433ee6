/**
 * Area vehicle search (label point business type 4, platform-spec §9): the window's rule and each row's
 * replay link. The server answers the vehicles inside the area during the window with their entry and exit.
 */
import type { Dayjs } from 'dayjs';
import type { AreaVisit } from './api';

/** The longest window one search covers (the server refuses a longer one too). */
export const MAX_WINDOW_H = 24;
/** Replay this much before the entry and after the exit, so the crossing itself is on the track. */
const REPLAY_MARGIN_MS = 60_000;

/** The i18n key of what is wrong with a window, or null. */
export function windowProblem(range: [Dayjs, Dayjs] | null | undefined): string | null {
  if (!range) return 'areaSearch.errors.window';
  const [start, end] = range;
  if (!end.isAfter(start)) return 'areaSearch.errors.order';
  if (end.diff(start, 'minute') > MAX_WINDOW_H * 60) return 'areaSearch.errors.tooLong';
  return null;
}

/** The track replay of a row's visit (`/dashboard/trace?carId=&start=&end=`, epoch ms): from a minute
 * before it entered (or the window's start) to a minute after it left (or the window's end). */
export function replayHref(row: AreaVisit, windowStart: number, windowEnd: number): string {
  const start = row.enterTime ? Date.parse(row.enterTime) - REPLAY_MARGIN_MS : windowStart;
  const end = row.exitTime ? Date.parse(row.exitTime) + REPLAY_MARGIN_MS : windowEnd;
  return `/dashboard/trace?carId=${row.carId}&start=${Math.max(start, windowStart - REPLAY_MARGIN_MS)}&end=${Math.min(end, windowEnd + REPLAY_MARGIN_MS)}`;
}

/** The rows of the answer, a bare list or a page. */
export function visitsOf(data: AreaVisit[] | { list: AreaVisit[] } | null | undefined): AreaVisit[] {
  if (!data) return [];
  return Array.isArray(data) ? data : (data.list ?? []);
}
