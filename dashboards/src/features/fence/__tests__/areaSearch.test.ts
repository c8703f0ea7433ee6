import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { replayHref, visitsOf, windowProblem } from '../areaSearch';

describe('windowProblem', () => {
  const start = dayjs('2026-12-01T00:00:00Z');
  it('accepts a window of exactly 24 h', () => {
    expect(windowProblem([start, start.add(24, 'hour')])).toBeNull();
  });
  it('refuses a window longer than 24 h, one ending before it starts, and none', () => {
    expect(windowProblem([start, start.add(24, 'hour').add(1, 'minute')])).toBe('areaSearch.errors.tooLong');
    expect(windowProblem([start, start])).toBe('areaSearch.errors.order');
    expect(windowProblem(null)).toBe('areaSearch.errors.window');
  });
});

describe('replayHref', () => {
  const windowStart = Date.parse('2026-12-01T00:00:00Z');
  const windowEnd = Date.parse('2026-12-01T06:00:00Z');
  it('replays a minute either side of the visit', () => {
    const href = replayHref({ carId: 7, plateNumber: 'A', enterpriseName: 'E', enterTime: '2026-12-01T01:00:00Z', exitTime: '2026-12-01T02:00:00Z' }, windowStart, windowEnd);
    expect(href).toBe(`/dashboard/trace?carId=7&start=${Date.parse('2026-12-01T00:59:00Z')}&end=${Date.parse('2026-12-01T02:01:00Z')}`);
  });
  it('uses the window for a vehicle already inside at its start or still inside at its end', () => {
    const href = replayHref({ carId: 7, plateNumber: 'A', enterpriseName: 'E', enterTime: null, exitTime: null }, windowStart, windowEnd);
    expect(href).toBe(`/dashboard/trace?carId=7&start=${windowStart}&end=${windowEnd}`);
  });
});

describe('visitsOf', () => {
  it('reads a bare list or a page', () => {
    const row = { carId: 1, plateNumber: 'A', enterpriseName: 'E', enterTime: null, exitTime: null };
    expect(visitsOf([row])).toEqual([row]);
    expect(visitsOf({ list: [row] })).toEqual([row]);
    expect(visitsOf(null)).toEqual([]);
  });
});
