/**
 * Alarms on the replayed track (pure): where each alarm row of the range goes on the map, how its
 * marker is labelled, and the alarm text of a point (console-spec §2: cut to 35 characters + "…").
 *
 * Alarm rows come with the track reply (`alarms`: episodes, events and platform alarms, which are on
 * no gps row), already named in the language the track was loaded in; a point's names come as its
 * `alarmText` (the server's `alarmInfo`), its bit alarms otherwise.
 */
import { alarmBitNames, truncateAlarm } from '../map/popup/format';
import { pointIndexAt, type ReplayPoint, type TrackAlarm } from './track';

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** Alarm types 5-8 are active safety (ADAS, DSM, TPMS, BSD: console-spec §3 "Alarm"). */
export function isActiveSafety(alarm: Pick<TrackAlarm, 'type'>): boolean {
  return alarm.type >= 5 && alarm.type <= 8;
}

export interface AlarmMarker {
  alarm: TrackAlarm;
  lng: number;
  lat: number;
  /** The track point at or before the alarm's start (where a click seeks to); -1 on an empty track. */
  index: number;
  activeSafety: boolean;
}

/**
 * A marker per alarm row: at the alarm's own position when it has one, else on the track's point at
 * its start (a platform alarm without a position). An alarm without either is left out.
 */
export function alarmMarkers(alarms: readonly TrackAlarm[], points: readonly ReplayPoint[]): AlarmMarker[] {
  const markers: AlarmMarker[] = [];
  for (const alarm of alarms) {
    const index = pointIndexAt(points, alarm.start);
    const own = Number.isFinite(alarm.lng) && Number.isFinite(alarm.lat) && !(alarm.lng === 0 && alarm.lat === 0);
    const at = own ? { lng: alarm.lng as number, lat: alarm.lat as number } : index >= 0 ? points[index] : null;
    if (at) markers.push({ alarm, lng: at.lng, lat: at.lat, index, activeSafety: isActiveSafety(alarm) });
  }
  return markers;
}

/**
 * A marker's label: its name cut like the popup's alarm text, then its time ("start – end", "start,
 * ongoing" while it lasts, only the start for an instantaneous event). `time` formats epoch ms.
 */
export function alarmMarkerTitle(alarm: TrackAlarm, t: Translate, time: (ms: number) => string): string {
  const name = truncateAlarm(alarm.name);
  if (alarm.end === null) return t('alarms.ongoing', { name, start: time(alarm.start) });
  if (alarm.end === alarm.start) return t('alarms.event', { name, start: time(alarm.start) });
  return t('alarms.episode', { name, start: time(alarm.start), end: time(alarm.end) });
}

/** A point's alarm text: the server's names (every alarm of the point), else its bit alarms by name. */
export function pointAlarmText(point: Pick<ReplayPoint, 'alarm' | 'alarmText'>, t: Translate): string {
  return point.alarmText ?? alarmBitNames(point.alarm, t).join(',');
}
