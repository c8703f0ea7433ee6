import { describe, expect, it } from 'vitest';
import { alarmMarkers, alarmMarkerTitle, isActiveSafety, pointAlarmText } from '../alarms';
import type { ReplayPoint, TrackAlarm } from '../track';

const points: ReplayPoint[] = [
  { time: 1000, lng: 116.1, lat: 39.1, alarm: 0 },
  { time: 2000, lng: 116.2, lat: 39.2, alarm: 0 },
  { time: 3000, lng: 116.3, lat: 39.3, alarm: 0 },
];
const alarm = (over: Partial<TrackAlarm>): TrackAlarm => ({
  id: 1, key: 'adas_1', type: 5, level: 2, name: '二级 前向碰撞报警', start: 2000, end: 2000, lng: 116.25, lat: 39.25, speed: 40, state: 0, atted: false,
  ...over,
});
// i18next-like: the key and its options, so a test sees which text is chosen with what
const t = (key: string, options?: Record<string, unknown>) => `${key}|${JSON.stringify(options ?? {})}`;
const time = (ms: number) => `T${ms}`;

describe('alarm rows on the track', () => {
  it('puts an alarm at its own position, or on the track point at its start when it has none', () => {
    const markers = alarmMarkers([alarm({}), alarm({ id: 2, key: 'p_overspeed', type: 3, lng: null, lat: null, start: 2500, end: 2600 })], points);
    expect(markers.map((m) => [m.alarm.id, m.lng, m.lat, m.index, m.activeSafety])).toEqual([
      [1, 116.25, 39.25, 1, true],
      [2, 116.2, 39.2, 1, false],
    ]);
  });

  it('treats 0,0 as no position and leaves out an alarm with no place at all', () => {
    expect(alarmMarkers([alarm({ lng: 0, lat: 0, start: 3500 })], points)[0]).toMatchObject({ lng: 116.3, lat: 39.3, index: 2 });
    expect(alarmMarkers([alarm({ lng: null, lat: null })], [])).toEqual([]);
  });

  it('counts types 5 to 8 as active safety', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((type) => isActiveSafety({ type }))).toEqual([false, false, false, false, true, true, true, true]);
  });

  it('labels an event with its time, an episode with its start and end, an open episode as ongoing', () => {
    expect(alarmMarkerTitle(alarm({}), t, time)).toBe('alarms.event|{"name":"二级 前向碰撞报警","start":"T2000"}');
    expect(alarmMarkerTitle(alarm({ end: 9000 }), t, time)).toBe('alarms.episode|{"name":"二级 前向碰撞报警","start":"T2000","end":"T9000"}');
    expect(alarmMarkerTitle(alarm({ end: null }), t, time)).toBe('alarms.ongoing|{"name":"二级 前向碰撞报警","start":"T2000"}');
  });

  it('cuts a long alarm name at 35 characters plus an ellipsis in its label', () => {
    const name = '一级 前向碰撞报警,一级 车道偏离报警,一级 车距过近报警,一级 行人碰撞报警';
    const label = alarmMarkerTitle(alarm({ name }), (_key, options) => String(options?.name), time);
    expect(Array.from(label)).toHaveLength(36);
    expect(label.endsWith('…')).toBe(true);
  });
});

describe('a point\'s alarm text', () => {
  const bits = (key: string) => (key === 'alarmBits.1' ? '超速报警' : key);

  it('is the server\'s names when it sent them, the bit names otherwise', () => {
    expect(pointAlarmText({ alarm: 2, alarmText: '超速报警,一级 接打电话报警' }, bits)).toBe('超速报警,一级 接打电话报警');
    expect(pointAlarmText({ alarm: 2 }, bits)).toBe('超速报警');
    expect(pointAlarmText({ alarm: 0, alarmText: null }, bits)).toBe('');
  });
});
