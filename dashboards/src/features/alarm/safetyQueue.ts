/**
 * The safety alarm dialog's queue and its mutes: at several active-safety alarms a minute a dialog that
 * re-opens on every push cannot be worked, so pushed alarms wait in a queue (newest first, with a
 * visible count) and only pop the dialog up while the operator has not closed it on waiting alarms.
 * A mute (by alarm level or by alarm key, for a chosen number of minutes, kept per user in the browser)
 * stops the pop-up, never the counting: a muted alarm is still queued.
 */
import type { TFunction } from 'i18next';
import type { Alarm } from './api';

/** The most alarms kept waiting (the oldest leave first); the badge shows "99+" past it. */
export const QUEUE_LIMIT = 99;
/** The mute lengths offered, in minutes. */
export const MUTE_MINUTES = [5, 15, 60] as const;

export interface QueuedAlarm {
  alarm: Alarm;
  /** Muted when it arrived: counted, but it did not pop the dialog up. */
  muted: boolean;
}

export type MuteBy = 'level' | 'key';

export interface Mute {
  by: MuteBy;
  /** The alarm's level ("1", "2") or key ("dsm_1"), as text. */
  value: string;
  /** Epoch ms the mute ends. */
  untilMs: number;
}

const idOf = (alarm: Alarm): string => String(alarm.id);

/**
 * `alarm` in front of the queue. Pushes are delivered at least once: a push of an alarm already queued is
 * a re-delivery and leaves the queue as it is (the same array), so the alarm keeps its first place and is
 * counted once; moving it to the front would shift every "older" step the operator is making.
 */
export function enqueue(queue: readonly QueuedAlarm[], alarm: Alarm, muted: boolean): readonly QueuedAlarm[] {
  if (placeOf(queue, idOf(alarm)) >= 0) return queue;
  return [{ alarm, muted }, ...queue].slice(0, QUEUE_LIMIT);
}

/** The queue without the alarm `id` (handled or ignored). */
export function dequeue(queue: readonly QueuedAlarm[], id: string | number): QueuedAlarm[] {
  return queue.filter((entry) => idOf(entry.alarm) !== String(id));
}

/** The 0-based place of alarm `id` in the queue, -1 when it is not queued. */
export function placeOf(queue: readonly QueuedAlarm[], id: string | number | null): number {
  if (id === null) return -1;
  return queue.findIndex((entry) => idOf(entry.alarm) === String(id));
}

/**
 * Whether a push may open the dialog by itself: not while it is open (the alarm on screen is never
 * swapped under the operator), not after the operator closed it on waiting alarms (`dismissed`), never
 * for a muted alarm.
 */
export function popsUp(state: { open: boolean; dismissed: boolean }, muted: boolean): boolean {
  return !state.open && !state.dismissed && !muted;
}

/** What a mute of `by` compares: the alarm's level or key as text, null when the alarm has none. */
export function muteValue(alarm: Pick<Alarm, 'level' | 'key'>, by: MuteBy): string | null {
  const value = by === 'level' ? alarm.level : alarm.key;
  return value === null || value === undefined || value === '' ? null : String(value);
}

/** What a mute covers, in the console's language: "二级" or "疲劳驾驶报警". */
export function muteLabel(t: TFunction, by: MuteBy, value: string): string {
  return by === 'level'
    ? t(`alarmSettings:enums.level.${value}`, { defaultValue: value })
    : t(`alarmSettings:enums.alarmKey.${value}`, { defaultValue: value });
}

export function activeMutes(mutes: readonly Mute[], nowMs: number): Mute[] {
  return mutes.filter((mute) => mute.untilMs > nowMs);
}

export function isMuted(mutes: readonly Mute[], alarm: Pick<Alarm, 'level' | 'key'>, nowMs: number): boolean {
  return activeMutes(mutes, nowMs).some((mute) => muteValue(alarm, mute.by) === mute.value);
}

/** The mutes with `by` = `value` for `minutes` from now (replacing one of the same level or key). */
export function addMute(mutes: readonly Mute[], by: MuteBy, value: string, minutes: number, nowMs: number): Mute[] {
  const others = activeMutes(mutes, nowMs).filter((mute) => mute.by !== by || mute.value !== value);
  return [...others, { by, value, untilMs: nowMs + minutes * 60_000 }];
}

export function removeMute(mutes: readonly Mute[], by: MuteBy, value: string): Mute[] {
  return mutes.filter((mute) => mute.by !== by || mute.value !== value);
}

/** The browser's key of one user's mutes (two operators sharing a browser keep their own). */
export function muteStorageKey(userId: number | string | null | undefined): string {
  return `fleetwatch.safetyMutes.${userId ?? 'anonymous'}`;
}

const isMute = (value: unknown): value is Mute => {
  if (!value || typeof value !== 'object') return false;
  const mute = value as Record<string, unknown>;
  return (mute.by === 'level' || mute.by === 'key') && typeof mute.value === 'string' && mute.value !== ''
    && typeof mute.untilMs === 'number' && Number.isFinite(mute.untilMs);
};

/** Stored mutes still running; anything unreadable (edited by hand, an older shape) is dropped. */
export function parseMutes(raw: string | null, nowMs: number): Mute[] {
  if (!raw) return [];
  try {
    const value: unknown = JSON.parse(raw);
    return Array.isArray(value) ? activeMutes(value.filter(isMute), nowMs) : [];
  } catch {
    return [];
  }
}

export function readMutes(userId: number | string | null | undefined, nowMs: number): Mute[] {
  try {
    return parseMutes(localStorage.getItem(muteStorageKey(userId)), nowMs);
  } catch {
    return [];
  }
}

export function writeMutes(userId: number | string | null | undefined, mutes: readonly Mute[]): void {
  try {
    localStorage.setItem(muteStorageKey(userId), JSON.stringify(mutes));
  } catch {
    // storage full or disabled: the mute lasts for this page only
  }
}
