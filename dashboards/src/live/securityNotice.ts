/**
 * Push type 15 (docs/topics.md): a terminal security notice from the gateway — a new connection
 * authenticated and closed the terminal's live one, or a re-registration replaced its auth code.
 */
import { PUSH_SECURITY_NOTICE, type PushMessage } from './types';

export const SECURITY_EVENTS = ['session_replaced', 'code_replaced'] as const;
export type SecurityEvent = (typeof SECURITY_EVENTS)[number] | 'other';

export interface SecurityNotice {
  event: SecurityEvent;
  /** The plate when the terminal is bound to a vehicle, else its phone. */
  vehicle: string;
  phone: string;
  /** Remote address of the new connection, and of the one it closed (session_replaced). */
  peer: string;
  replacedPeer: string;
  /** The server's bilingual text, for events this console does not know. */
  message: string;
  time: string;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

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
    message: text(data.message),
    time: text(data.time),
  };
}
