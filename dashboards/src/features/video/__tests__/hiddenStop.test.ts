import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { DEFAULT_STOP_GRACE_MS, HiddenStop, stopGraceMs } from '../hiddenStop';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('what plays on a hidden page stops after the grace', () => {
  test('stops once the page stayed hidden for the whole grace, not before', () => {
    const stop = vi.fn();
    const guard = new HiddenStop(stop);
    guard.update(false, true, 15_000);
    vi.advanceTimersByTime(14_999);
    expect(stop).not.toHaveBeenCalled();
    guard.update(false, true, 15_000); // a re-render while hidden does not restart the grace
    vi.advanceTimersByTime(1);
    expect(stop).toHaveBeenCalledTimes(1);
  });

  test('coming back within the grace keeps it playing, and a new hidden spell starts a new grace', () => {
    const stop = vi.fn();
    const guard = new HiddenStop(stop);
    guard.update(false, true, 10_000);
    vi.advanceTimersByTime(9_000);
    guard.update(true, true, 10_000);
    vi.advanceTimersByTime(60_000);
    expect(stop).not.toHaveBeenCalled();
    guard.update(false, true, 10_000);
    vi.advanceTimersByTime(10_000);
    expect(stop).toHaveBeenCalledTimes(1);
  });

  test('nothing playing: nothing to stop', () => {
    const stop = vi.fn();
    const guard = new HiddenStop(stop);
    guard.update(false, false, 1000);
    vi.advanceTimersByTime(5000);
    expect(stop).not.toHaveBeenCalled();
  });

  test('the grace is the media server\u2019s, from the start answers', () => {
    expect(stopGraceMs([{ stopGraceS: 12 }, null, { stopGraceS: 20 }])).toBe(20_000);
    expect(stopGraceMs([null, {}])).toBe(DEFAULT_STOP_GRACE_MS);
  });
});
