import { describe, expect, test } from 'vitest';
import { detailHref, isUnhandled, trackHref } from '../model';
import { hoursValid, payloadOf, rowsFor } from '../notifyModel';
import { DEFAULT_ALARM_RULE } from '../../alarm/api';

describe('alarm list links', () => {
  const start = Date.UTC(2026, 10, 25, 2, 0, 0);
  test('the track spans five minutes either side of the alarm, in epoch ms', () => {
    const href = trackHref({ carId: 7, startTime: new Date(start).toISOString(), endTime: new Date(start + 60_000).toISOString() });
    expect(href).toBe(`/dashboard/trace?carId=7&start=${start - 300_000}&end=${start + 60_000 + 300_000}`);
  });
  test('an open or instantaneous alarm is shown around its start', () => {
    expect(trackHref({ carId: 7, startTime: start, endTime: null })).toBe(`/dashboard/trace?carId=7&start=${start - 300_000}&end=${start + 300_000}`);
  });
  test('no vehicle or no start: no track', () => {
    expect(trackHref({ carId: null, startTime: start })).toBeNull();
    expect(trackHref({ carId: 3, startTime: null })).toBeNull();
    expect(trackHref({ carId: 3, startTime: 'not a time' })).toBeNull();
  });
  test('detail links carry the id (or the spec\'s _id)', () => {
    expect(detailHref('alarmDetail', { id: 42 })).toBe('/list/alarmDetail?id=42');
    expect(detailHref('safetyAlarmDetail', { _id: 9 })).toBe('/list/safetyAlarmDetail?id=9');
  });
  test('only state 0 is unhandled', () => {
    expect(isUnhandled({ state: 0 })).toBe(true);
    expect(isUnhandled({ state: 2 })).toBe(false);
    expect(isUnhandled({ state: 4 })).toBe(false);
  });
});

describe('notify settings rows', () => {
  const saved = { a0: { ...DEFAULT_ALARM_RULE, disabled: true }, old_key: { ...DEFAULT_ALARM_RULE } };
  test('every catalogue key once, the saved rule or the default, saved keys the catalogue lacks last', () => {
    const rows = rowsFor({ alarmRule: saved }, ['a0', 'a1']);
    expect(rows.map((r) => r.alarmKey)).toEqual(['a0', 'a1', 'old_key']);
    expect(rows[0].disabled).toBe(true);
    expect(rows[1]).toEqual({ alarmKey: 'a1', ...DEFAULT_ALARM_RULE });
  });
  test('the PUT body keeps saved rules and changed ones, trims the voice, and carries the switches', () => {
    const rows = rowsFor({ alarmRule: saved }, ['a0', 'a1', 'a2']).map((r) => (r.alarmKey === 'a2' ? { ...r, voice: '  注意  ', startHour: 8 } : r));
    const switches = { carStateChangeWindowEnable: false, carRespCmdWindowEnable: true, uploadFileWindowEnable: true };
    const body = payloadOf(rows, switches, new Set(Object.keys(saved)));
    expect(Object.keys(body.alarmRule ?? {}).sort()).toEqual(['a0', 'a2', 'old_key']);
    expect(body.alarmRule?.a2).toEqual({ ...DEFAULT_ALARM_RULE, voice: '注意', startHour: 8 });
    expect(body.carStateChangeWindowEnable).toBe(false);
  });
  test('hours: start 0-23 before end 1-24, whole', () => {
    expect(hoursValid({ startHour: 0, endHour: 24 })).toBe(true);
    expect(hoursValid({ startHour: 8, endHour: 18 })).toBe(true);
    expect(hoursValid({ startHour: 22, endHour: 6 })).toBe(false);
    expect(hoursValid({ startHour: 8, endHour: 8 })).toBe(false);
    expect(hoursValid({ startHour: 24, endHour: 24 })).toBe(false);
    expect(hoursValid({ startHour: 1, endHour: 25 })).toBe(false);
    expect(hoursValid({ startHour: 1.5, endHour: 3 })).toBe(false);
  });
});
