/**
 * Pushes 11 (command result) and 12 (command send error) of console-spec §7, as the notice the
 * console shows: the vehicle, the command's name and the outcome (`command` namespace keys).
 */
import type { PushMessage } from '../../live/types';

export const PUSH_COMMAND_RESULT = 11;
export const PUSH_COMMAND_ERROR = 12;

/** 0 success, 1 failure, 2 message error, 3 unsupported (console-spec §4), or timed out / offline. */
export type CommandOutcome = 'success' | 'failure' | 'messageError' | 'unsupported' | 'timedOut' | 'offline';

export interface CommandNotice {
  commandId: number | null;
  deviceId: number | null;
  vehicle: string;
  /** "8300": the key of `names.*`. */
  msgId: string;
  outcome: CommandOutcome;
  /** The server's bilingual text (send errors), shown when the console has nothing better. */
  message: string;
  /** Id of the user who sent the command; null for the platform's own (0x9208, 0x9102 of idle streams). */
  createdBy: number | null;
  time: string;
}

const RESULTS: Record<number, CommandOutcome> = { 0: 'success', 1: 'failure', 2: 'messageError', 3: 'unsupported' };
const SEND_ERRORS: Record<number, CommandOutcome> = { 1: 'offline', 2: 'messageError', 3: 'unsupported' };

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const numberOrNull = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** 33536 or "8300" or "0x8300" -> "8300". */
export function msgIdHex(value: unknown): string {
  if (typeof value === 'number' && Number.isInteger(value)) return value.toString(16).toUpperCase().padStart(4, '0');
  const raw = text(value).replace(/^0x/i, '').toUpperCase();
  return /^[0-9A-F]{1,4}$/.test(raw) ? raw.padStart(4, '0') : raw;
}

/**
 * Whether the signed-in user `userId` is told: the answer of a command is its sender's (their dialog closed
 * when it was accepted). The platform's own commands and other operators' are in the command records.
 */
export function isOwnCommand(notice: CommandNotice, userId: number | null | undefined): boolean {
  return notice.createdBy !== null && userId != null && notice.createdBy === userId;
}

/** The notice of push 11 or 12; null for other pushes. A result push without a result is a timeout. */
export function commandNotice(push: PushMessage): CommandNotice | null {
  if ((push.type !== PUSH_COMMAND_RESULT && push.type !== PUSH_COMMAND_ERROR) || !push.data) return null;
  const data = push.data;
  let outcome: CommandOutcome;
  if (push.type === PUSH_COMMAND_RESULT) {
    const result = numberOrNull(data.result);
    outcome = data.state === 'timed_out' || result === null ? 'timedOut' : (RESULTS[result] ?? 'failure');
  } else {
    outcome = SEND_ERRORS[numberOrNull(data.reason) ?? 2] ?? 'messageError';
  }
  return {
    commandId: numberOrNull(data.commandId),
    deviceId: numberOrNull(data.deviceId),
    vehicle: text(data.plateNumber) || String(data.deviceId ?? '-'),
    msgId: msgIdHex(data.msgId),
    outcome,
    // as an error reply: localMessage is the text in the user's language, message the Chinese text
    message: text(data.localMessage) || text(data.message),
    createdBy: numberOrNull(data.createdBy),
    time: typeof data.time === 'number' ? new Date(data.time).toISOString() : text(data.time),
  };
}

/** Success is good news; the rest asks the operator to look. */
export function noticeLevel(outcome: CommandOutcome): 'success' | 'warning' | 'error' {
  if (outcome === 'success') return 'success';
  return outcome === 'timedOut' || outcome === 'unsupported' ? 'warning' : 'error';
}
