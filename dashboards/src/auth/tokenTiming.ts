import type { StoredToken } from './types';

/** Console-spec §4/§9: check every 5 minutes, refresh when expired or within 10 minutes of expiry. */
export const TOKEN_CHECK_INTERVAL_MS = 5 * 60 * 1000;
export const TOKEN_REFRESH_WINDOW_MS = 10 * 60 * 1000;

/**
 * When the token expires, on the browser's clock: receipt time + expires_in. The server's create_time
 * is not used, so a skewed browser clock cannot make a fresh token look expired.
 */
export function tokenExpiresAt(token: Pick<StoredToken, 'received_at_ms' | 'expires_in'>): number {
  return token.received_at_ms + token.expires_in * 1000;
}

export function tokenNeedsRefresh(
  token: Pick<StoredToken, 'received_at_ms' | 'expires_in'>,
  nowMs: number,
  windowMs = TOKEN_REFRESH_WINDOW_MS,
): boolean {
  return nowMs >= tokenExpiresAt(token) - windowMs;
}
