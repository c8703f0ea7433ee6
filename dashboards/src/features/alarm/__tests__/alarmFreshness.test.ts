// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { PushMessage } from '../../../live/types';
import { ALARM_LIVE_DELAY_MS, ALARM_REFRESH_MS, announceAlarmChanged, keepAlarmFiguresFresh } from '../alarmEvents';
import { PUSH_ALARM } from '../alarmPush';

/** The alarm figures (the index's counters, the alarm dashboard) are read now, every minute, and once soon after a
 * burst of new alarms or a handling here; nothing after the screen is left. */
describe('keepAlarmFiguresFresh', () => {
  let listeners: ((push: PushMessage) => void)[];
  const hub = {
    onPush: (listener: (push: PushMessage) => void) => {
      listeners.push(listener);
      return () => { listeners = listeners.filter((l) => l !== listener); };
    },
  };
  const push = (type: number) => listeners.forEach((l) => l({ type, data: {} }));

  beforeEach(() => {
    listeners = [];
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  test('reads now and every minute', () => {
    const load = vi.fn();
    const stop = keepAlarmFiguresFresh(load, hub);
    expect(load).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(ALARM_REFRESH_MS);
    expect(load).toHaveBeenCalledTimes(2);
    stop();
  });

  test('a burst of alarm pushes and a handling here cost one read each, other pushes none', () => {
    const load = vi.fn();
    const stop = keepAlarmFiguresFresh(load, hub);
    push(PUSH_ALARM);
    push(PUSH_ALARM);
    push(PUSH_ALARM + 1);
    vi.advanceTimersByTime(ALARM_LIVE_DELAY_MS - 1);
    expect(load).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(load).toHaveBeenCalledTimes(2);
    announceAlarmChanged();
    vi.advanceTimersByTime(ALARM_LIVE_DELAY_MS);
    expect(load).toHaveBeenCalledTimes(3);
    stop();
  });

  test('stopped: no timer, no push and no handling reads again', () => {
    const load = vi.fn();
    keepAlarmFiguresFresh(load, hub)();
    push(PUSH_ALARM);
    announceAlarmChanged();
    vi.advanceTimersByTime(ALARM_REFRESH_MS * 2);
    expect(load).toHaveBeenCalledTimes(1);
    expect(listeners).toEqual([]);
  });

  test('without a live socket the minute and the handlings still read', () => {
    const load = vi.fn();
    const stop = keepAlarmFiguresFresh(load, null);
    announceAlarmChanged();
    vi.advanceTimersByTime(ALARM_LIVE_DELAY_MS);
    expect(load).toHaveBeenCalledTimes(2);
    stop();
  });
});
