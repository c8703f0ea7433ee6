import type { PushMessage } from '../../live/types';
import { PUSH_ALARM } from './alarmPush';

/**
 * "An alarm changed here" (handled or ignored in this console): the counters re-read on it, as they do
 * on a new alarm's push 2.
 */
export const ALARM_CHANGED_EVENT = 'fleet:alarm-changed';

export function announceAlarmChanged(): void {
  window.dispatchEvent(new Event(ALARM_CHANGED_EVENT));
}

export function onAlarmChanged(listener: () => void): () => void {
  window.addEventListener(ALARM_CHANGED_EVENT, listener);
  return () => window.removeEventListener(ALARM_CHANGED_EVENT, listener);
}

/** How often the alarm figures are read again without any news. */
export const ALARM_REFRESH_MS = 60_000;
/** A new alarm (push 2) or a handling here reads them again after this, once for a burst. */
export const ALARM_LIVE_DELAY_MS = 1000;

/**
 * Keeps a screen's alarm figures fresh: `load` runs now, every `everyMs` (ALARM_REFRESH_MS unless the screen has a
 * cadence of its own), and soon after a new alarm (push 2 on the one socket owner, `hub`) or a handling in this
 * console, at most once per ALARM_LIVE_DELAY_MS, so a burst of alarms costs one read. Returns the function that
 * stops it (for an effect's clean-up).
 */
export function keepAlarmFiguresFresh(load: () => void,
  hub: { onPush: (listener: (push: PushMessage) => void) => () => void } | null, everyMs = ALARM_REFRESH_MS): () => void {
  load();
  const timer = setInterval(load, everyMs);
  let pending: ReturnType<typeof setTimeout> | null = null;
  const soon = () => {
    pending ??= setTimeout(() => {
      pending = null;
      load();
    }, ALARM_LIVE_DELAY_MS);
  };
  const stopPushes = hub?.onPush((push) => {
    if (push.type === PUSH_ALARM) soon();
  });
  const stopChanges = onAlarmChanged(soon);
  return () => {
    clearInterval(timer);
    if (pending !== null) clearTimeout(pending);
    stopPushes?.();
    stopChanges();
  };
}
