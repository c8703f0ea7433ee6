/**
 * JT/T 809 inspections (查岗, 0x9301) as the console keeps them: from the open ones read at sign-in and from
 * push 16 (docs/topics.md) while signed in. Pure, so the pop-up's rules are tested without a browser.
 */
import { PUSH_EXCHANGE_INSPECTION, type PushMessage } from '../../live/types';

export interface Inspection {
  id: number;
  platformId: number | null;
  platformName: string;
  question: string;
  objectId: string;
  /** Epoch ms, null when the superior gave no time limit. */
  receivedAtMs: number;
  deadlineMs: number | null;
}

/** An inspection is alarmed in its last 20 % of the time it was given, and at least in its last 60 s. */
export const ALARM_SHARE = 0.2;
export const ALARM_MIN_MS = 60_000;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const time = (value: unknown): number | null => {
  if (typeof value !== 'string' || !value) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
};

/** An inspection from a push 16 body or a row of `inspectMessage` (same field names); null when unusable. */
export function inspectionOf(data: Record<string, unknown> | null | undefined): Inspection | null {
  if (!data) return null;
  const id = data.inspectionId ?? data.id;
  if (typeof id !== 'number' || !Number.isInteger(id) || id <= 0) return null;
  const receivedAtMs = time(data.receivedAt);
  if (receivedAtMs === null) return null;
  return {
    id,
    platformId: typeof data.platformId === 'number' ? data.platformId : null,
    platformName: text(data.platformName),
    question: text(data.question),
    objectId: text(data.objectId),
    receivedAtMs,
    deadlineMs: time(data.deadline),
  };
}

/** The inspection carried by a push, or null for any other push type. */
export function inspectionPush(push: PushMessage): Inspection | null {
  return push.type === PUSH_EXCHANGE_INSPECTION ? inspectionOf(push.data) : null;
}

/** Milliseconds left to answer (0 once past), null without a deadline. */
export function remainingMs(inspection: Inspection, nowMs: number): number | null {
  return inspection.deadlineMs === null ? null : Math.max(0, inspection.deadlineMs - nowMs);
}

export function isExpired(inspection: Inspection, nowMs: number): boolean {
  return inspection.deadlineMs !== null && nowMs >= inspection.deadlineMs;
}

/** Shortly before its deadline and still answerable: the last 20 % of its time, or the last 60 s. */
export function isAlarmed(inspection: Inspection, nowMs: number): boolean {
  const left = remainingMs(inspection, nowMs);
  if (left === null || left <= 0 || inspection.deadlineMs === null) return false;
  const given = Math.max(0, inspection.deadlineMs - inspection.receivedAtMs);
  return left <= Math.max(ALARM_MIN_MS, given * ALARM_SHARE);
}

/** "mm:ss" (or "h:mm:ss") of a countdown. */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${pad(m)}:${pad(s)}`;
}

/** The waiting inspections after one arrives (a repeated push replaces its copy), soonest deadline first
 * (no deadline last, then by arrival). */
export function withInspection(list: Inspection[], inspection: Inspection): Inspection[] {
  const rest = list.filter((i) => i.id !== inspection.id);
  return [...rest, inspection].sort((a, b) =>
    (a.deadlineMs ?? Number.MAX_SAFE_INTEGER) - (b.deadlineMs ?? Number.MAX_SAFE_INTEGER) || a.receivedAtMs - b.receivedAtMs);
}
