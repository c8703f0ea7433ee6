import { describe, expect, it } from 'vitest';
import { toCounts } from './api';

describe('dashboard counters', () => {
  it('counts every state but offline as online, and keeps the API total', () => {
    expect(toCounts({ running: 3, parking: 2, flameout: 1, noSignal: 1, offline: 5, total: 12 }, { total: 9 })).toEqual({
      running: 3,
      parking: 2,
      flameout: 1,
      noSignal: 1,
      offline: 5,
      total: 12,
      online: 7,
      todayOnline: 9,
      alarming: 0,
      todayMileageKm: 0,
      todayAlarms: null,
      unhandled: null,
    });
  });

  it('sums the states when the total is missing and tolerates a missing today report', () => {
    const counts = toCounts({ running: 1, parking: 0, flameout: 0, noSignal: 0, offline: 2 } as never, null);
    expect(counts?.total).toBe(3);
    expect(counts?.todayOnline).toBe(0);
  });

  it("carries today's figures as the server gives them (null: the caller may not read alarms)", () => {
    const counts = toCounts({ running: 1, parking: 0, flameout: 0, noSignal: 0, offline: 0, total: 1, alarming: 1,
      todayMileageKm: 39.3, todayAlarms: 3, unhandled: 2 }, null);
    expect(counts).toMatchObject({ alarming: 1, todayMileageKm: 39.3, todayAlarms: 3, unhandled: 2 });
  });

  it('gives nothing without the state report', () => {
    expect(toCounts(null, { total: 1 })).toBeNull();
  });
});
