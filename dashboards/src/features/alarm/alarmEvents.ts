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
