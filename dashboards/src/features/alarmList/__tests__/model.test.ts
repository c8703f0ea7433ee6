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
  const saved = {
    a0: { ...DEFAULT_ALARM_RULE, disabled: true, source: 'user' as const },
    a1: { ...DEFAULT_ALARM_RULE, voiceEnable: true, startHour: 8, endHour: 20, source: 'enterprise' as const },
    old_key: { ...DEFAULT_ALARM_RULE, source: 'user' as const },
  };
  test('every catalogue key once with the rule in effect and its source, keys the catalogue lacks last', () => {
    const rows = rowsFor({ alarmRule: saved }, ['a0', 'a1', 'a2']);
    expect(rows.map((r) => r.alarmKey)).toEqual(['a0', 'a1', 'a2', 'old_key']);
    expect(rows[0]).toMatchObject({ disabled: true, source: 'user' });
    expect(rows[1]).toMatchObject({ voiceEnable: true, startHour: 8, source: 'enterprise' });
    expect(rows[2]).toEqual({ alarmKey: 'a2', ...DEFAULT_ALARM_RULE, source: 'default' });
  });
  test('the PUT body holds only the rules changed since loading, as the user\'s own, voice trimmed', () => {
    const loaded = rowsFor({ alarmRule: saved }, ['a0', 'a1', 'a2', 'a3']);
    const rows = loaded.map((r) => {
      if (r.alarmKey === 'a2') return { ...r, voice: '  注意  ', startHour: 8 };
      if (r.alarmKey === 'a1') return { ...r, windowEnable: false };
      return r;
    });
    const body = payloadOf(rows, loaded);
    // a0 (own, unchanged) stays as saved, a3 (default) and old_key are left alone: only a1 and a2 are sent
    expect(Object.keys(body.alarmRule).sort()).toEqual(['a1', 'a2']);
    expect(body.alarmRule.a2).toEqual({ ...DEFAULT_ALARM_RULE, voice: '注意', startHour: 8 });
    expect(body.alarmRule.a1).toEqual({ ...DEFAULT_ALARM_RULE, voiceEnable: true, startHour: 8, endHour: 20, windowEnable: false });
    expect('source' in body.alarmRule.a1).toBe(false);
    expect(payloadOf(loaded, loaded)).toEqual({ alarmRule: {} });
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
