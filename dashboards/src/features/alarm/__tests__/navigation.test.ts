import { describe, expect, test } from 'vitest';
import { todayStartMs } from '../api';
import { indexAfterHandled, navigate } from '../navigation';

describe('previous / next among the car\'s unhandled alarms of today', () => {
  test('cannot go below the first record', () => {
    expect(navigate(1, 3, -1)).toEqual({ edge: 'first' });
    expect(navigate(2, 3, -1)).toEqual({ index: 1 });
  });

  test('cannot go past the last unhandled alarm', () => {
    expect(navigate(3, 3, 1)).toEqual({ edge: 'last' });
    expect(navigate(1, 3, 1)).toEqual({ index: 2 });
  });

  test('after handling, stays at the same place or closes when none is left', () => {
    expect(indexAfterHandled(2, 2)).toBe(2);
    expect(indexAfterHandled(3, 2)).toBe(2);
    expect(indexAfterHandled(1, 0)).toBeNull();
  });

  test('"today" starts at midnight China Standard Time', () => {
    // 2026-11-25 01:00 UTC is 09:00 CST: today began at 2026-11-24 16:00 UTC.
    expect(todayStartMs(Date.UTC(2026, 10, 25, 1, 0))).toBe(Date.UTC(2026, 10, 24, 16, 0));
    // 2026-11-25 17:00 UTC is already 26 Nov 01:00 CST.
    expect(todayStartMs(Date.UTC(2026, 10, 25, 17, 0))).toBe(Date.UTC(2026, 10, 25, 16, 0));
  });
});
