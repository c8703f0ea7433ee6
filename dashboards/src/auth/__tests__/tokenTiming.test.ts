import { describe, expect, test } from 'vitest';
import { TOKEN_CHECK_INTERVAL_MS, TOKEN_REFRESH_WINDOW_MS, tokenExpiresAt, tokenNeedsRefresh } from '../tokenTiming';

const MIN = 60_000;
const token = { received_at_ms: 1_000_000, expires_in: 3600 };

describe('token refresh timing', () => {
  test('is checked every 5 minutes and refreshes within 10 minutes of expiry', () => {
    expect(TOKEN_CHECK_INTERVAL_MS).toBe(5 * MIN);
    expect(TOKEN_REFRESH_WINDOW_MS).toBe(10 * MIN);
  });

  test('expiry is receipt time plus expires_in seconds', () => {
    expect(tokenExpiresAt(token)).toBe(1_000_000 + 3_600_000);
  });

  test('a fresh token is not refreshed', () => {
    expect(tokenNeedsRefresh(token, token.received_at_ms)).toBe(false);
    expect(tokenNeedsRefresh(token, tokenExpiresAt(token) - 10 * MIN - 1)).toBe(false);
  });

  test('a token within 10 minutes of expiry is refreshed', () => {
    expect(tokenNeedsRefresh(token, tokenExpiresAt(token) - 10 * MIN)).toBe(true);
    expect(tokenNeedsRefresh(token, tokenExpiresAt(token) - 1)).toBe(true);
  });

  test('an expired token is refreshed', () => {
    expect(tokenNeedsRefresh(token, tokenExpiresAt(token) + 1)).toBe(true);
  });

  test('with a 5-minute check, a token is always refreshed before it expires', () => {
    // The worst case: the last check falls just before the window opens; the next is 5 minutes later.
    const lastCheck = tokenExpiresAt(token) - 10 * MIN - 1;
    expect(tokenNeedsRefresh(token, lastCheck)).toBe(false);
    expect(tokenNeedsRefresh(token, lastCheck + TOKEN_CHECK_INTERVAL_MS)).toBe(true);
    expect(lastCheck + TOKEN_CHECK_INTERVAL_MS).toBeLessThan(tokenExpiresAt(token));
  });

  test('a token shorter-lived than the window is refreshed at the first check', () => {
    expect(tokenNeedsRefresh({ received_at_ms: 0, expires_in: 300 }, 0)).toBe(true);
  });
});
