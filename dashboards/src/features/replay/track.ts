/**
 * Tracks as the replay uses them (pure): the columnar reply of GET /api/gps/car/{carId}/track.json
 * turned into points, several tracks merged onto one timeline, and a vehicle's point at a time of
 * that timeline.
 */
import type { TrackPoint } from '../map/popup/TrackPointPopup';

export const TRACK_FIELDS = ['time', 'lng', 'lat', 'speed', 'direction', 'altitude', 'mileage', 'oilmass', 'acc', 'alarmType', 'status'] as const;
/** The track point's alarm objects (console-spec §3, platform-spec §3 "Alarm data"): the decoded active-safety
 * items (tpmAlarm in the spec's shape `{alarmList: [{type, ...}]}`, see `TpmAlarm`) and a GB/T 32960 /
 * GB 17691 point's alarm object (fault lists). `videoAlarm` is no object but the 0x14 bitmask (`ReplayPoint`). */
export const ALARM_ITEM_FIELDS = ['adasAlarm', 'dsmAlarm', 'tpmAlarm', 'bsdAlarm', 'gbAlarm'] as const;
export type AlarmItemField = (typeof ALARM_ITEM_FIELDS)[number];
export type AlarmItem = Record<string, unknown>;

/** One tyre event of a tpmAlarm: `type` is its type WORD (bit 0 timed report, 1-7 the tyre alarms). */
export interface TyreEvent {
  type: number;
  tyre?: number;
  pressure_kpa?: number;
  temperature_c?: number;
  battery_pct?: number;
}

/** The track point's tpmAlarm (platform-spec §3 tpmAlarm{alarmList[{type}]}). */
export interface TpmAlarm extends AlarmItem {
  alarmList: TyreEvent[];
}

/** An alarm row of the range (episode, event or platform alarm), named by the server in the caller's language. */
export interface TrackAlarm {
  id: number;
  key: string;
  /** 1 terminal bit, 2 video, 3 platform, 5-8 active safety (ADAS, DSM, TPMS, BSD). */
  type: number;
  level: number | null;
  name: string;
  start: number;
  /** null while an episode lasts. */
  end: number | null;
  lng: number | null;
  lat: number | null;
  speed: number | null;
  state: number;
  atted: boolean;
}

export interface TrackStop {
  kind: 'park' | 'idle';
  start: number;
  end: number;
  durationS: number;
  lng: number;
  lat: number;
}

/** The reply's data (contract B). */
export interface TrackReply {
  carId: number;
  deviceId: number | null;
  plateNumber: string;
  start: number;
  end: number;
  total: number;
  returned: number;
  thinned: boolean;
  fields: string[];
  rows: unknown[][];
  stops: TrackStop[];
  /** The car's alarm rows starting in the range (at most 1000; alarmsTruncated when more). */
  alarms?: TrackAlarm[];
  alarmsTruncated?: boolean;
  /** Fixes of the range stored flagged implausible (a time far from receipt, a jump faster than any vehicle): left out of rows. */
  flagged?: number;
}

export interface ReplayPoint extends TrackPoint, Partial<Record<AlarmItemField, AlarmItem | null>> {
  time: number;
  status?: number | null;
  /** The 0x14 video alarm bitmask (platform-spec §3: 32 bits), null or absent without video alarm. */
  videoAlarm?: number | null;
}

export interface VehicleTrack {
  carId: number;
  plateNumber: string;
  color: string;
  points: ReplayPoint[];
  stops: TrackStop[];
  alarms: TrackAlarm[];
  alarmsTruncated: boolean;
  total: number;
  thinned: boolean;
  /** Implausible fixes the server left out of this track. */
  flagged: number;
}

/** Distinct colours for vehicles replayed side by side. */
export const TRACK_COLORS = ['#1677ff', '#eb2f96', '#fa8c16', '#13c2c2', '#722ed1', '#52c41a', '#a0d911', '#2f54eb'];

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const item = (value: unknown): AlarmItem | null => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as AlarmItem) : null);

/** Rows to points by the reply's own field list; rows without a time or a position are dropped. The
 * alarm text (`alarmInfo`, already in the caller's language) becomes the point's `alarmText`. */
export function toPoints(reply: Pick<TrackReply, 'fields' | 'rows'>): ReplayPoint[] {
  const at = (name: string) => reply.fields.indexOf(name);
  const column = Object.fromEntries(TRACK_FIELDS.map((name) => [name, at(name)])) as Record<(typeof TRACK_FIELDS)[number], number>;
  const cell = (row: unknown[], name: (typeof TRACK_FIELDS)[number]) => (column[name] >= 0 ? num(row[column[name]]) : null);
  const infoAt = at('alarmInfo');
  const items = ALARM_ITEM_FIELDS.map((name) => [name, at(name)] as const).filter(([, index]) => index >= 0);
  const videoAt = at('videoAlarm');
  const points: ReplayPoint[] = [];
  for (const row of reply.rows) {
    const time = cell(row, 'time');
    const lng = cell(row, 'lng');
    const lat = cell(row, 'lat');
    if (time === null || lng === null || lat === null) continue;
    points.push({
      time, lng, lat,
      speed: cell(row, 'speed'),
      direction: cell(row, 'direction'),
      altitude: cell(row, 'altitude'),
      mileage: cell(row, 'mileage'),
      oilmass: cell(row, 'oilmass'),
      acc: cell(row, 'acc'),
      alarm: cell(row, 'alarmType'),
      status: cell(row, 'status'),
    });
    const point = points[points.length - 1];
    if (infoAt >= 0) point.alarmText = text(row[infoAt]);
    for (const [name, index] of items) {
      const found = item(row[index]);
      if (found) point[name] = found;
    }
    const video = videoAt >= 0 ? num(row[videoAt]) : null;
    if (video) point.videoAlarm = video;
  }
  return points;
}

export function toVehicleTrack(reply: TrackReply, color: string): VehicleTrack {
  return {
    carId: reply.carId,
    plateNumber: reply.plateNumber,
    color,
    points: toPoints(reply),
    stops: reply.stops ?? [],
    alarms: reply.alarms ?? [],
    alarmsTruncated: reply.alarmsTruncated ?? false,
    total: reply.total,
    thinned: reply.thinned,
    flagged: reply.flagged ?? 0,
  };
}

/** The shared clock's timeline: every distinct point time of every track, ascending. */
export function mergeTimeline(tracks: readonly { points: readonly { time: number }[] }[]): number[] {
  const times = new Set<number>();
  for (const track of tracks) for (const p of track.points) times.add(p.time);
  return [...times].sort((a, b) => a - b);
}

function lastAtOrBefore(count: number, timeAt: (i: number) => number, time: number): number {
  if (count === 0) return -1;
  if (time < timeAt(0)) return 0;
  let lo = 0;
  let hi = count - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (timeAt(mid) <= time) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The track's last point at or before `time` (its first point before it starts); -1 when empty. */
export function pointIndexAt(points: readonly { time: number }[], time: number): number {
  return lastAtOrBefore(points.length, (i) => points[i].time, time);
}

/** The timeline index closest to `time` (a click on the speed chart). */
export function timelineIndexNear(timeline: readonly number[], time: number): number {
  if (timeline.length === 0) return 0;
  const i = lastAtOrBefore(timeline.length, (k) => timeline[k], time);
  const next = Math.min(timeline.length - 1, i + 1);
  return Math.abs(timeline[next] - time) < Math.abs(timeline[i] - time) ? next : i;
}

/** Whether a point is an alarm point: alarm bits, an alarm text, or an active-safety / video item. */
export function isAlarmPoint(point: Pick<ReplayPoint, 'alarm' | 'alarmText' | 'videoAlarm' | AlarmItemField>): boolean {
  return !!point.alarm || !!point.alarmText || !!point.videoAlarm || ALARM_ITEM_FIELDS.some((name) => !!point[name]);
}

/** Kind of a point's marker (console-spec §4): start, end, alarm, or an ordinary middle point. */
export type PointStyle = 'start' | 'middle' | 'end' | 'alarm';

export function pointStyle(index: number, count: number, point: Pick<ReplayPoint, 'alarm' | 'alarmText' | 'videoAlarm' | AlarmItemField>): PointStyle {
  if (index === 0) return 'start';
  if (index === count - 1) return 'end';
  return isAlarmPoint(point) ? 'alarm' : 'middle';
}

/** A duration as the stop markers show it: "1h 05m", "12m 30s", "45s". */
export function formatDuration(seconds: number): { h: number; m: number; s: number } {
  const total = Math.max(0, Math.round(seconds));
  return { h: Math.floor(total / 3600), m: Math.floor((total % 3600) / 60), s: total % 60 };
}
