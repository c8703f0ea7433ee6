import { http } from '../api/client';
import { AUTH_CLIENT } from '../config';
import { basicCredentials } from './session';
import type { CurrentUser, TokenData } from './types';

/** The token calls' Authorization under protocol 2: the console's client credentials (config.ts), when it has them. */
const clientAuthorization = () => (AUTH_CLIENT ? `Basic ${basicCredentials(AUTH_CLIENT.id, AUTH_CLIENT.secret)}` : undefined);

/** The token calls are quiet: their failure is told by sessionService.notifyTokenFailure (console-spec §8). */
export function passwordGrant(username: string, password: string, signal?: AbortSignal) {
  return http.get<TokenData>('/oauth2/token.json', {
    params: { grant_type: 'password', username, password },
    signal,
    quiet: true,
    authorization: clientAuthorization(),
  });
}

export function refreshGrant(refreshToken: string, signal?: AbortSignal) {
  return http.get<TokenData>('/oauth2/token.json', {
    params: { grant_type: 'refresh_token', refresh_token: refreshToken },
    signal,
    quiet: true,
    authorization: clientAuthorization(),
  });
}

export function fetchCurrentUser(signal?: AbortSignal) {
  return http.get<CurrentUser>('/api/user/current.json', { signal });
}

export interface PasswordChange {
  id: number;
  account: string;
  oldPassword: string;
  password: string;
  confirmPassword: string;
}

export function changePassword(change: PasswordChange) {
  return http.patch<{ id: number }>(`/api/common/user/${change.id}.json`, { body: change });
}

export interface ProfileUpdate {
  email: string;
  nickName: string;
  profile: string;
  country: string;
  province: string;
  city: string;
  address: string;
  phone: string;
}

export function updateProfile(profile: Partial<ProfileUpdate>) {
  return http.put<CurrentUser>('/api/user/profile.json', { body: profile });
}

export interface NoticeOverview {
  bizType: number;
  total: number;
}

export function fetchNoticeOverview(signal?: AbortSignal) {
  return http.get<NoticeOverview[]>('/api/notice/overView.json', { signal });
}
