import { clientEffects, logoutToLogin } from '../api/effects';
import { NETWORK_FAILURE_CODE, type ApiReply } from '../api/types';
import { userHasPermissions } from '../router/routeTable';
import { fetchCurrentUser, passwordGrant, refreshGrant } from './authApi';
import { basicCredentials, session } from './session';
import { tokenNeedsRefresh } from './tokenTiming';
import type { CurrentUser } from './types';

/**
 * Loads the current user with permissions and route map (console-spec §4: after login, or on a
 * reload that has a token but no user). A user without permissions is told so and logged out.
 */
export async function loadCurrentUser(signal?: AbortSignal, basic?: string): Promise<CurrentUser | null> {
  const reply = await fetchCurrentUser(signal);
  if (reply.code !== 0 || !reply.data) return null;
  if (!userHasPermissions(reply.data.permissions)) {
    const { notifyError, translate } = clientEffects();
    notifyError(translate('common:request.errorTitle'), translate('auth:noPermission'));
    logoutToLogin();
    return null;
  }
  // Authorization protocol 1 (console-spec §7 "General"): the sign-in's Basic credentials, stored before the
  // user is, so no call of the signed-in console goes out with the Bearer token.
  if (basic !== undefined) session.setBasic(reply.data.authProtocol === 1 ? basic : null);
  session.setUser(reply.data);
  return reply.data;
}

/**
 * Console-spec §8: a token call (sign-in or refresh) that failed says so in the user's language: 'failed to
 * get token, error notify: <the server's message>' when the server answered, 'failed to get token, retry
 * later' when it could not be reached (or said nothing). A cancelled call (code 0) shows nothing.
 */
export function notifyTokenFailure(reply: ApiReply<unknown>): void {
  if (reply.code === 0) return;
  const { notifyError, translate } = clientEffects();
  const unreached = reply.code === NETWORK_FAILURE_CODE && reply.message === translate('common:request.network');
  const text = unreached || !reply.message
    ? translate('auth:tokenFailed.retry')
    : translate('auth:tokenFailed.notify').replace('{{message}}', reply.message);
  notifyError(translate('common:request.errorTitle'), text);
}

/** Password grant then the current user. Resolves the failing reply's code, or 0. */
export async function signIn(username: string, password: string): Promise<ApiReply<CurrentUser | null>> {
  const reply = await passwordGrant(username, password);
  if (reply.code !== 0 || !reply.data) {
    notifyTokenFailure(reply);
    return { code: reply.code || 500, message: reply.message, data: null };
  }
  session.setToken(reply.data);
  session.setBasic(null);
  const user = await loadCurrentUser(undefined, basicCredentials(username, password));
  // Failed attempts before this one left error notifications; they are no longer true.
  if (user) clientEffects().clearErrors();
  return user ? { code: 0, message: '', data: user } : { code: 403, message: '', data: null };
}

/**
 * The 5-minute check: refreshes a token that expired or expires within 10 minutes. When refreshing
 * fails the user signs in again (the password is not kept to do it silently).
 */
export async function refreshTokenIfNeeded(nowMs = Date.now()): Promise<'fresh' | 'refreshed' | 'failed' | 'none'> {
  const token = session.get().token;
  if (!token) return 'none';
  if (!tokenNeedsRefresh(token, nowMs)) return 'fresh';
  const reply = await refreshGrant(token.refresh_token);
  if (reply.code === 0 && reply.data) {
    session.setToken(reply.data);
    return 'refreshed';
  }
  notifyTokenFailure(reply);
  // The failure handler has already logged out on 40002; don't log out twice (the redirect would be lost).
  if (session.get().token) logoutToLogin();
  return 'failed';
}

export function logout(): void {
  session.clear();
}
