/** `GET /api/exchange/gb32960/unknownLogins.json` (api/routes/exchange.py): GB/T 32960 platform logins with a
 * username no inferior platform has, platform-wide, for a root enterprise's administrators. */
import { http } from '../../api/client';

export interface UnknownLogin {
  /** As received (unprintable characters as "?"). */
  username: string;
  address: string;
  gatewayId: string;
  firstAt: string;
  lastAt: string;
  attempts: number;
}

export interface UnknownLogins {
  /** False for a user below the root enterprise: no rows, nothing to show. */
  visible: boolean;
  list: UnknownLogin[];
}

export function fetchUnknownLogins(signal?: AbortSignal) {
  return http.get<UnknownLogins>('/api/exchange/gb32960/unknownLogins.json', { signal, quiet: true });
}
