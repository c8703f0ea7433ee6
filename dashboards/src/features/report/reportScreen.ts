/**
 * What every report screen shares, so a screen file is a short declaration on the one list framework
 * (features/list): read-only with export, the caller's whole enterprise tree (isParent), the filter kinds
 * of the report fields (enterprise tree, vehicle, driver, report days, months), the default ranges, the
 * cell formats (durations, kilometres, days).
 */
import dayjs, { type Dayjs } from 'dayjs';
import type { TFunction } from 'i18next';
import type { FilterKind, ListRecord, ListScreen } from '../list/types';
import { clock as clockText, dayText, decimalText, monthText } from '../list/display';

/** Reports are read-only lists: no create, edit, delete or import; export stays. */
export const REPORT_FEATURES: ListScreen['features'] = { create: false, edit: false, delete: false, import: false };

/** Every report reads the caller's enterprise and its subsidiaries (platform-spec §6); the enterprise filter narrows. */
export const REPORT_PARAMS = { isParent: true };

/** How the report fields filter (features/list FilterKind). */
export const REPORT_FILTER_KINDS: Record<string, FilterKind> = {
  enterpriseId: { kind: 'enterprise' },
  carId: { kind: 'ref', entity: 'car' },
  driverId: { kind: 'ref', entity: 'driver' },
  date: { kind: 'dayRange' },
  month: { kind: 'monthRange' },
};

/** The days a day report opens with: the last 7 closed days (yesterday and the 6 before). */
export function lastDays(days = 7, now: Dayjs = dayjs()): [Dayjs, Dayjs] {
  const yesterday = now.subtract(1, 'day').startOf('day');
  return [yesterday.subtract(days - 1, 'day'), yesterday];
}

/** The months a month report opens with: this month and the 5 before. */
export function lastMonths(months = 6, now: Dayjs = dayjs()): [Dayjs, Dayjs] {
  return [now.subtract(months - 1, 'month').startOf('month'), now.startOf('month')];
}

/** A report screen: the shared defaults under the screen's own declaration. Its export is the table as shown
 * (columns, titles, cell texts in the user's language), never the raw fields. */
export function reportScreen(screen: ListScreen): ListScreen {
  return {
    permission: 'report',
    params: REPORT_PARAMS,
    features: REPORT_FEATURES,
    exportAsShown: true,
    ...screen,
    filterKinds: { ...REPORT_FILTER_KINDS, ...screen.filterKinds },
  };
}

/** Seconds as hours with one decimal ("2.5"); empty for no value. */
export function hours(seconds: unknown): string {
  const n = seconds === null || seconds === undefined || seconds === '' ? NaN : Number(seconds);
  return Number.isFinite(n) ? (n / 3600).toFixed(1) : '';
}

/** Seconds as "1:02:03" (the `duration` display: features/list/display.ts). */
export const clock = clockText;

/** Kilometres (and km/h) with two decimals at most (the `decimal` display). */
export const km = decimalText;

/** Column renderers shared by the screens. */
export const cells = {
  day: (value: unknown) => dayText(value),
  month: (value: unknown) => monthText(value),
  clock: (value: unknown) => clock(value),
  km: (value: unknown) => km(value),
};

/** A column of a duration field shown as h:mm:ss. */
export const durationColumn = (field: string) => ({ field, render: cells.clock });
/** A column of a kilometre / speed field rounded. */
export const kmColumn = (field: string) => ({ field, render: cells.km });
/** The day column of a day table. */
export const dayColumn = { field: 'date', render: cells.day };
/** The month column of a month table. */
export const monthColumn = { field: 'month', render: cells.month };

/** An enum-like value labelled from the report strings (`report:enums.<name>.<value>`). */
export function enumColumn(field: string, t: TFunction) {
  return { field, render: (value: unknown) => (value === null || value === undefined ? '' : t(`report:enums.${field}.${String(value)}`, { defaultValue: String(value) })) };
}

/** The track replay of a row's vehicle over the row's time (trips: start to end). */
export function replayHref(record: ListRecord, start = 'startAt', end = 'endAt'): string {
  return `/dashboard/trace?carId=${String(record.carId)}&start=${dayjs(String(record[start])).valueOf()}&end=${dayjs(String(record[end])).valueOf()}`;
}
