import dayjs, { type Dayjs } from 'dayjs';
import type { TFunction } from 'i18next';
import { useSearchParams } from 'react-router';
import type { ListRecord, ListScreen, RowAction } from '../list/types';

/** The history logs are read-only lists: no create, edit, delete or import (export stays). */
export const READ_ONLY: ListScreen['features'] = { create: false, edit: false, delete: false, import: false };

/** Today, from 00:00:00 to 23:59:59 local time: the range a log opens with. */
export function todayRange(now: Dayjs = dayjs()): [Dayjs, Dayjs] {
  return [now.startOf('day'), now.endOf('day')];
}

/** `?carId=` of the current URL (links from the map, the replay and the vehicle detail), if valid. */
export function useCarIdParam(): number | undefined {
  const [params] = useSearchParams();
  const value = Number(params.get('carId'));
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/** What a log screen opens with: the vehicle of the URL (if any) and today in `timeField`. */
export function initialFilters(carId: number | undefined, timeField: string): Record<string, unknown> {
  return { ...(carId ? { carId } : {}), [timeField]: todayRange() };
}

/** A duration in seconds as "1小时2分3秒" / "2分3秒". */
export function formatDuration(seconds: unknown, t: TFunction): string {
  const total = Math.max(0, Math.round(Number(seconds) || 0));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return h > 0 ? t('log:duration', { h, m, s }) : t('log:durationShort', { m, s });
}

/** The track replay of a stop's vehicle over the stop's time (contract E: epoch ms). */
export function replayHref(record: ListRecord): string {
  const start = dayjs(String(record.startTime)).valueOf();
  const end = dayjs(String(record.endTime)).valueOf();
  return `/dashboard/trace?carId=${String(record.carId)}&start=${start}&end=${end}`;
}

export function replayAction(t: TFunction): RowAction {
  return { key: 'replay', label: t('log:replay'), href: replayHref };
}
