/**
 * Push type 15 (docs/topics.md): a terminal security notice from the gateway — a new connection
 * authenticated and closed the terminal's live one, a re-registration replaced its auth code, a
 * registration or authentication was refused because it is not the terminal id / IMEI recorded, or a
 * re-registration of an online device waits for an administrator (approve / refuse, `requestId`).
 */
import { PUSH_SECURITY_NOTICE, type PushMessage } from './types';

export const SECURITY_EVENTS = [
  'session_replaced', 'code_replaced', 'identity_mismatch', 'imei_mismatch', 'reregistration_pending',
] as const;
export type SecurityEvent = (typeof SECURITY_EVENTS)[number] | 'other';

export interface SecurityNotice {
  event: SecurityEvent;
  /** The plate when the terminal is bound to a vehicle, else its phone. */
  vehicle: string;
  phone: string;
  /** Remote address of the new connection, and of the one it closed (session_replaced). */
  peer: string;
  replacedPeer: string;
  /** The server's text in the user's language, for events this console does not know: the push's
   * `localMessage` (set per the socket's X-Fleet-Language, as an HTTP error's), else its `message`. */
  message: string;
  time: string;
  deviceId: number | null;
  /** reregistration_pending: the request an administrator approves or refuses. */
  requestId: number | null;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const id = (value: unknown): number | null => (typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null);

/** The notice carried by a push, or null for any other push type or a body without a phone. */
export function securityNotice(push: PushMessage): SecurityNotice | null {
  if (push.type !== PUSH_SECURITY_NOTICE || !push.data) return null;
  const data = push.data;
  const phone = text(data.phone);
  if (!phone) return null;
  const raw = text(data.event);
  const event: SecurityEvent = (SECURITY_EVENTS as readonly string[]).includes(raw) ? (raw as SecurityEvent) : 'other';
  return {
    event,
    vehicle: text(data.plateNumber) || phone,
    phone,
    peer: text(data.peer) || '-',
    replacedPeer: text(data.replacedPeer) || '-',
    message: text(data.localMessage) || text(data.message), // the user's language first, as an error reply
    time: text(data.time),
    deviceId: id(data.deviceId),
    requestId: id(data.requestId),
  };
}
