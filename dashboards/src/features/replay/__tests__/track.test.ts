import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { arrowsAlong, chevron } from '../arrows';
import { presetRange, rangeFromQuery } from '../range';
import { formatDuration, mergeTimeline, pointIndexAt, pointStyle, timelineIndexNear, toPoints, toVehicleTrack, type TrackReply } from '../track';

const reply: TrackReply = {
  carId: 7,
  deviceId: 70,
  plateNumber: '粤B12345',
  start: 0,
  end: 100_000,
  total: 3,
  returned: 3,
  thinned: false,
  fields: ['time', 'lng', 'lat', 'speed', 'direction', 'altitude', 'mileage', 'oilmass', 'acc', 'alarmType', 'status'],
  rows: [
    [1000, 114.05, 22.54, 0, 90, 10, 100.5, 40, 1, 0, 3],
    [11_000, 114.06, 22.55, 36.5, 45, 12, 100.6, 39.9, 1, 2, 3],
    [21_000, null, null, 0, 0, 0, 0, 0, 0, 0, 0],
    [31_000, 114.07, 22.56, 0, 0, 11, 100.7, 39.8, 0, 0, 2],
  ],
  stops: [{ kind: 'park', start: 21_000, end: 31_000, durationS: 10, lng: 114.07, lat: 22.56 }],
};

describe('track replies (contract B)', () => {
  it('turns columnar rows into points by the reply field list, dropping rows without a position', () => {
    const points = toPoints(reply);
    expect(points).toHaveLength(3);
    expect(points[1]).toMatchObject({ time: 11_000, lng: 114.06, lat: 22.55, speed: 36.5, direction: 45, altitude: 12, mileage: 100.6, oilmass: 39.9, acc: 1, alarm: 2, status: 3 });
  });

  it('follows the field order the server gives', () => {
    const points = toPoints({ fields: ['lat', 'lng', 'time'], rows: [[22.5, 114.1, 5]] });
    expect(points[0]).toMatchObject({ time: 5, lng: 114.1, lat: 22.5, speed: null });
  });

  it('reads the alarm fields: the server\'s alarm text and the decoded items', () => {
    const fields = [...reply.fields, 'alarmInfo', 'adasAlarm', 'dsmAlarm', 'tpmAlarm', 'bsdAlarm', 'videoAlarm'];
    const adas = { type: 1, level: 2, flag: 1 };
    const tpm = { alarm_id: 3, alarmList: [{ tyre: 1, type: 4, pressure_kpa: 180, temperature_c: 40, battery_pct: 90 }] };
    const points = toPoints({
      fields,
      rows: [
        [1000, 114.05, 22.54, 0, 90, 10, 100.5, 40, 1, 0, 3, null, null, null, null, null, null],
        [11_000, 114.06, 22.55, 36.5, 45, 12, 100.6, 39.9, 1, 2, 3, '超速报警,二级 前向碰撞报警', adas, null, null, null, null],
        [12_000, 114.06, 22.55, 36.5, 45, 12, 100.6, 39.9, 1, 0, 3, 'Video signal lost', null, null, null, null, 1],
        [13_000, 114.06, 22.55, 0, 45, 12, 100.6, 39.9, 1, 0, 3, '胎压过低报警', null, null, tpm, null, null],
      ],
    });
    expect(points[0].alarmText).toBeNull();
    expect(points[0]).not.toHaveProperty('adasAlarm');
    expect(points[1]).toMatchObject({ alarm: 2, alarmText: '超速报警,二级 前向碰撞报警', adasAlarm: adas });
    expect(points[2]).toMatchObject({ alarm: 0, videoAlarm: 1 }); // platform-spec §3: the 0x14 bitmask
    expect(points[3].tpmAlarm).toEqual(tpm); // platform-spec §3: tpmAlarm{alarmList[{type}]}
    expect(points[3]).not.toHaveProperty('videoAlarm');
    expect(toPoints(reply)[1].alarmText).toBeUndefined(); // an older server: no alarm fields, the bits name the alarm
  });

  it('keeps the alarm rows of the range', () => {
    const alarm = { id: 5, key: 'dsm_2', type: 6, level: 1, name: '一级 接打电话报警', start: 11_000, end: 11_000, lng: 114.06, lat: 22.55, speed: 36, state: 0, atted: true };
    const track = toVehicleTrack({ ...reply, alarms: [alarm], alarmsTruncated: true }, '#f00');
    expect(track.alarms).toEqual([alarm]);
    expect(track.alarmsTruncated).toBe(true);
    expect(toVehicleTrack(reply, '#f00')).toMatchObject({ alarms: [], alarmsTruncated: false });
  });

  it('keeps the count of implausible fixes the server left out (none when an older server omits it)', () => {
    expect(toVehicleTrack({ ...reply, flagged: 2 }, '#f00').flagged).toBe(2);
    expect(toVehicleTrack(reply, '#f00').flagged).toBe(0);
  });

  it('keeps the stops and the thinning facts', () => {
    const track = toVehicleTrack({ ...reply, thinned: true, total: 9000 }, '#f00');
    expect(track).toMatchObject({ carId: 7, plateNumber: '粤B12345', color: '#f00', thinned: true, total: 9000 });
    expect(track.stops[0].kind).toBe('park');
  });
});

describe('one clock for several vehicles', () => {
  const a = { points: [{ time: 10 }, { time: 20 }, { time: 30 }] };
  const b = { points: [{ time: 15 }, { time: 20 }, { time: 40 }] };

  it('merges every distinct time into one ascending timeline', () => {
    expect(mergeTimeline([a, b])).toEqual([10, 15, 20, 30, 40]);
  });

  it("puts each vehicle on its last point at or before the clock's time", () => {
    expect(pointIndexAt(a.points, 25)).toBe(1);
    expect(pointIndexAt(a.points, 30)).toBe(2);
    expect(pointIndexAt(a.points, 99)).toBe(2);
    expect(pointIndexAt(b.points, 10)).toBe(0); // before its first point: shown on it
    expect(pointIndexAt([], 10)).toBe(-1);
  });

  it('finds the timeline index nearest a time (a click on the speed chart)', () => {
    const timeline = [10, 15, 20, 30, 40];
    expect(timelineIndexNear(timeline, 16)).toBe(1);
    expect(timelineIndexNear(timeline, 26)).toBe(3);
    expect(timelineIndexNear(timeline, 0)).toBe(0);
    expect(timelineIndexNear(timeline, 1000)).toBe(4);
  });
});

describe('point styles and stop durations', () => {
  it('styles the first point start, the last end, alarm points alarm and the rest middle', () => {
    expect(pointStyle(0, 5, { alarm: 4 })).toBe('start');
    expect(pointStyle(4, 5, { alarm: 0 })).toBe('end');
    expect(pointStyle(2, 5, { alarm: 4 })).toBe('alarm');
    expect(pointStyle(2, 5, { alarm: 0 })).toBe('middle');
  });

  it('styles a point with an active-safety or video alarm and no alarm bit as an alarm point too', () => {
    expect(pointStyle(2, 5, { alarm: 0, adasAlarm: { type: 1, level: 2 } })).toBe('alarm');
    expect(pointStyle(2, 5, { alarm: 0, tpmAlarm: { alarmList: [{ type: 4 }] } })).toBe('alarm');
    expect(pointStyle(2, 5, { alarm: 0, videoAlarm: 1 })).toBe('alarm');
    expect(pointStyle(2, 5, { alarm: 0, videoAlarm: 0 })).toBe('middle');
    expect(pointStyle(2, 5, { alarm: 0, alarmText: '分神驾驶报警' })).toBe('alarm');
    expect(pointStyle(2, 5, { alarm: 0, alarmText: null, dsmAlarm: null })).toBe('middle');
  });

  it('splits a duration into hours, minutes and seconds', () => {
    expect(formatDuration(3725)).toEqual({ h: 1, m: 2, s: 5 });
    expect(formatDuration(59.6)).toEqual({ h: 0, m: 1, s: 0 });
  });
});

describe('arrows every 50 px (console-spec §9)', () => {
  it('places an arrow every 50 px along the line, across segments, heading along it', () => {
    const arrows = arrowsAlong([{ x: 0, y: 0 }, { x: 120, y: 0 }, { x: 120, y: 100 }]);
    expect(arrows.map((a) => [Math.round(a.x), Math.round(a.y)])).toEqual([[50, 0], [100, 0], [120, 30], [120, 80]]);
    expect(arrows[0].angle).toBe(0);
    expect(arrows[2].angle).toBeCloseTo(Math.PI / 2);
  });

  it('keeps the spacing in pixels: twice the zoom, twice the arrows', () => {
    const line = (scale: number) => [{ x: 0, y: 0 }, { x: 500 * scale, y: 0 }];
    expect(arrowsAlong(line(1))).toHaveLength(10);
    expect(arrowsAlong(line(2))).toHaveLength(20);
  });

  it('returns only the arrows inside the view, at the same places', () => {
    const bounds = { min: { x: 120, y: -10 }, max: { x: 260, y: 10 } };
    expect(arrowsAlong([{ x: 0, y: 0 }, { x: 500, y: 0 }], 50, bounds).map((a) => a.x)).toEqual([150, 200, 250]);
  });

  it('draws a chevron whose tip is the arrow and whose arms trail behind it', () => {
    const [left, tip, right] = chevron({ x: 100, y: 100, angle: 0 });
    expect(tip).toEqual({ x: 100, y: 100 });
    expect(left.x).toBeLessThan(100);
    expect(right.x).toBeLessThan(100);
    expect(left.y).toBeCloseTo(200 - right.y);
  });
});

describe('time ranges', () => {
  const now = dayjs('2026-03-10T15:30:00');

  it('has the presets today, yesterday and the last 3 days', () => {
    expect(presetRange('today', now)).toEqual({ start: dayjs('2026-03-10T00:00:00').valueOf(), end: now.valueOf() });
    expect(presetRange('yesterday', now)).toEqual({ start: dayjs('2026-03-09T00:00:00').valueOf(), end: dayjs('2026-03-10T00:00:00').valueOf() - 1 });
    expect(presetRange('last3days', now)).toEqual({ start: dayjs('2026-03-08T00:00:00').valueOf(), end: now.valueOf() });
  });

  it('reads ?start=&end= as epoch ms or ISO 8601, else today', () => {
    expect(rangeFromQuery(new URLSearchParams('start=1000&end=2000'), now)).toEqual({ start: 1000, end: 2000 });
    expect(rangeFromQuery(new URLSearchParams('start=2026-03-01T00:00:00Z'), now).start).toBe(Date.parse('2026-03-01T00:00:00Z'));
    expect(rangeFromQuery(new URLSearchParams(''), now)).toEqual(presetRange('today', now));
  });
});
