// @vitest-environment jsdom
import { beforeEach, describe, expect, it } from 'vitest';
import { crossedFenceId, readShowFences, writeShowFences } from '../overlay';

describe('crossedFenceId', () => {
  it('reads the fence of a platform fence alarm key, segment or not', () => {
    expect(crossedFenceId({ type: 4, key: 'fence:12:enter' })).toBe(12);
    expect(crossedFenceId({ type: 4, key: 'fence:7:segmentTooLong:2' })).toBe(7);
  });
  it('marks a terminal area alarm (type 4 without a fence key) as a crossing of an unnamed fence', () => {
    expect(crossedFenceId({ type: 4, key: 'areaInOut' })).toBe(0);
  });
  it('leaves other alarms alone', () => {
    expect(crossedFenceId({ type: 1, key: 'overspeed' })).toBeNull();
  });
});

describe('show fences choice', () => {
  beforeEach(() => localStorage.clear());
  it('is off until turned on, and kept', () => {
    expect(readShowFences()).toBe(false);
    writeShowFences(true);
    expect(readShowFences()).toBe(true);
  });
});
