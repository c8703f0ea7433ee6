/**
 * The alarm report's drill-down (platform-spec §2 detail page report/alarm, route `reportAlarmDetail`): a count
 * cell of a report row (a terminal's day in the alarm report, an enterprise's day in the enterprise daily
 * report) opens the alarms behind that number. The link carries the row (terminal or enterprise), its days and
 * the kind of the column clicked; the detail turns them back into the alarm list's conditions, the same ones the
 * report counted (pipelines/alarms.py: alarms starting in the day, every key for `alarmTotal`, types 5-8 for
 * `activeSafety`), so the detail lists as many rows as the cell showed.
 */
import dayjs, { type Dayjs } from 'dayjs';

export const ALARM_DETAIL_PATH = '/report/alarmDetail';

/** What a count column counts: every alarm, the active-safety ones (types 5-8) or one alarm key. */
export type AlarmKind = 'alarmTotal' | 'activeSafety' | { key: string };

/** The cell clicked: whose alarms (a terminal, else an enterprise's own), which days (yyyymmdd), which kind. */
export interface AlarmCell {
  deviceId?: number;
  enterpriseId?: number;
  startDate: number;
  endDate: number;
  kind: AlarmKind;
}

/** The drill-down the detail page reads back from its URL. */
export interface AlarmDrill {
  cell: AlarmCell;
  /** The alarm list's fixed conditions (api/query grammar). */
  query: Record<string, unknown>;
  /** The start-time range: the first day's start to the last day's end. */
  range: readonly [Dayjs, Dayjs];
}

const ALARM_KEY = /^[a-z][a-z0-9_]*$/;
const DAY = /^\d{8}$/;

function positiveId(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

function kindParam(kind: AlarmKind): string {
  return typeof kind === 'string' ? kind : `key:${kind.key}`;
}

/** The link of a count cell, or null when the cell has no row to drill into (no terminal or enterprise, no day). */
export function alarmDetailHref(cell: AlarmCell): string | null {
  const deviceId = positiveId(cell.deviceId);
  const enterpriseId = positiveId(cell.enterpriseId);
  if (deviceId === undefined && enterpriseId === undefined) return null;
  if (!DAY.test(String(cell.startDate)) || !DAY.test(String(cell.endDate))) return null;
  if (typeof cell.kind !== 'string' && !ALARM_KEY.test(cell.kind.key)) return null;
  const params = new URLSearchParams();
  if (deviceId !== undefined) params.set('deviceId', String(deviceId));
  else if (enterpriseId !== undefined) params.set('enterpriseId', String(enterpriseId));
  params.set('startDate', String(cell.startDate));
  params.set('endDate', String(cell.endDate));
  params.set('kind', kindParam(cell.kind));
  return `${ALARM_DETAIL_PATH}?${params.toString()}`;
}

function parseKind(value: string | null): AlarmKind | undefined {
  if (value === 'alarmTotal' || value === 'activeSafety') return value;
  if (value?.startsWith('key:') && ALARM_KEY.test(value.slice(4))) return { key: value.slice(4) };
  return undefined;
}

/** The alarm list's conditions of a kind: the report's counting rule for that column. */
export function kindConditions(kind: AlarmKind): Record<string, unknown> {
  if (kind === 'alarmTotal') return {};
  if (kind === 'activeSafety') return { 'type.gte': 5, 'type.lte': 8 };
  return { 'key.eq': kind.key };
}

/** A yyyymmdd day at the browser's midnight, or undefined for no such day (20261332). */
function localDay(text: string): Dayjs | undefined {
  const [y, m, d] = [Number(text.slice(0, 4)), Number(text.slice(4, 6)), Number(text.slice(6, 8))];
  const day = dayjs(new Date(y, m - 1, d));
  return day.isValid() && day.format('YYYYMMDD') === text ? day : undefined;
}

/** The drill-down of a detail URL's parameters, or null for a URL no cell builds (the page then says so). */
export function parseAlarmDrill(params: URLSearchParams): AlarmDrill | null {
  const deviceId = positiveId(params.get('deviceId'));
  const enterpriseId = deviceId === undefined ? positiveId(params.get('enterpriseId')) : undefined;
  const kind = parseKind(params.get('kind'));
  const [startText, endText] = [params.get('startDate') ?? '', params.get('endDate') ?? ''];
  if ((deviceId === undefined && enterpriseId === undefined) || !kind || !DAY.test(startText) || !DAY.test(endText)) return null;
  const start = localDay(startText);
  const end = localDay(endText);
  if (!start || !end || end.isBefore(start)) return null;
  const owner = deviceId !== undefined ? { 'deviceId.eq': deviceId } : { 'enterpriseId.eq': enterpriseId };
  return {
    cell: { deviceId, enterpriseId, startDate: Number(startText), endDate: Number(endText), kind },
    query: { ...owner, ...kindConditions(kind) },
    range: [start.startOf('day'), end.endOf('day')],
  };
}
