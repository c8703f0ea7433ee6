// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, test, vi, type Mock } from 'vitest';
import i18n from '../../i18n';
import { configureClientEffects } from '../../api/effects';
import { session } from '../session';
import { loadCurrentUser, refreshTokenIfNeeded, signIn } from '../sessionService';

const reply = (data: unknown, code = 0, message = 'ok') =>
  new Response(JSON.stringify({ code, message, data }), { status: code === 40002 ? 401 : 200 });
const TOKEN = { access_token: 'a1', refresh_token: 'r1', expires_in: 3600, create_time: 0, token_type: 'bearer' };
const USER = { id: 7, userName: 'ops', permissions: [{ code: 'monitor', actions: ['query'] }], routes: [] };

let effects: { notifyError: Mock<(title: string, message: string) => void>; navigate: Mock<(to: string) => void> };
let restore: () => void;

beforeEach(() => {
  sessionStorage.clear();
  session.reload();
  effects = { notifyError: vi.fn(), navigate: vi.fn() };
  restore = configureClientEffects({ ...effects, currentPath: () => '/dashboard/index' });
});

afterEach(() => {
  restore();
  vi.unstubAllGlobals();
});

describe('sign-in', () => {
  test('stores the token and the user with permissions, never the password', async () => {
    vi.stubGlobal('fetch', vi.fn().mockResolvedValueOnce(reply(TOKEN)).mockResolvedValueOnce(reply(USER)));
    const result = await signIn('ops', 'secret12');
    expect(result.code).toBe(0);
    expect(session.get().token?.access_token).toBe('a1');
    expect(session.get().user?.id).toBe(7);
    const stored = Object.values({ ...sessionStorage }).join('\n') + Object.values({ ...localStorage }).join('\n');
    expect(stored).not.toContain('secret12');
  });

  test('under authorization protocol 1 every later call sends Basic userName:password (console-spec §7)', async () => {
    const fetchMock = vi.fn().mockResolvedValueOnce(reply(TOKEN)).mockResolvedValueOnce(reply({ ...USER, authProtocol: 1 }))
      .mockResolvedValueOnce(reply(USER));
    vi.stubGlobal('fetch', fetchMock);
    expect((await signIn('运维', 'secret12')).code).toBe(0);
    const expected = `Basic ${Buffer.from('运维:secret12', 'utf-8').toString('base64')}`;
    expect(session.authorization()).toBe(expected);
    await loadCurrentUser();
    const headers = (fetchMock.mock.calls[2][1] as RequestInit).headers as Record<string, string>;
    expect(headers.Authorization).toBe(expected);
    session.clear();
    expect(session.authorization()).toBeNull();
    expect(Object.values({ ...sessionStorage }).join('\n')).not.toContain(expected.slice(6));
  });

  test('under protocols 2 and 3 calls send the Bearer token', async () => {
    vi.stubGlobal('fetch', vi.fn().mockResolvedValueOnce(reply(TOKEN)).mockResolvedValueOnce(reply({ ...USER, authProtocol: 3 })));
    expect((await signIn('ops', 'secret12')).code).toBe(0);
    expect(session.authorization()).toBe('Bearer a1');
  });

  test('a user without permissions is told so and logged out', async () => {
    session.setToken(TOKEN);
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(reply({ ...USER, permissions: [] })));
    expect(await loadCurrentUser()).toBeNull();
    expect(effects.notifyError).toHaveBeenCalledWith('请求错误', '用户没有权限');
    expect(session.get().token).toBeNull();
    expect(effects.navigate).toHaveBeenCalledWith('/user/login?redirect=%2Fdashboard%2Findex');
  });
});

describe('token refresh', () => {
  test('a fresh token is left alone', async () => {
    const fetchMock = vi.fn();
    vi.stubGlobal('fetch', fetchMock);
    session.setToken(TOKEN, 1_000);
    expect(await refreshTokenIfNeeded(1_000 + 60_000)).toBe('fresh');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  test('a token near expiry is refreshed with the refresh_token grant', async () => {
    const fetchMock = vi.fn().mockResolvedValue(reply({ ...TOKEN, access_token: 'a2' }));
    vi.stubGlobal('fetch', fetchMock);
    session.setToken(TOKEN, 0);
    expect(await refreshTokenIfNeeded(3_600_000 - 5 * 60_000)).toBe('refreshed');
    expect(String(fetchMock.mock.calls[0][0])).toBe('/oauth2/token.json?grant_type=refresh_token&refresh_token=r1');
    expect(session.get().token?.access_token).toBe('a2');
  });

  test('a failed refresh goes to login with the redirect', async () => {
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(reply(null, 400, 'invalid refresh token')));
    session.setToken(TOKEN, 0);
    expect(await refreshTokenIfNeeded(3_600_000)).toBe('failed');
    expect(session.get().token).toBeNull();
    expect(effects.navigate).toHaveBeenCalledTimes(1);
    expect(effects.navigate).toHaveBeenCalledWith('/user/login?redirect=%2Fdashboard%2Findex');
  });

  test('a refresh answered 40002 logs out once, keeping the redirect', async () => {
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(reply(null, 40002, 'expired')));
    session.setToken(TOKEN, 0);
    expect(await refreshTokenIfNeeded(3_600_000)).toBe('failed');
    expect(effects.navigate).toHaveBeenCalledTimes(1);
    expect(effects.navigate).toHaveBeenCalledWith('/user/login?redirect=%2Fdashboard%2Findex');
  });
});

describe('a failed token call (console-spec §8)', () => {
  afterEach(async () => {
    await i18n.changeLanguage('zh-CN');
  });

  test.each([
    ['zh-CN', '用户名或密码错误', '获取 token 失败，错误通知：用户名或密码错误', '获取 token 失败，请稍后重试', '请求错误'],
    ['zh-HK', '用戶名或密碼錯誤', '獲取 token 失敗，錯誤通知：用戶名或密碼錯誤', '獲取 token 失敗，請稍後重試', '請求錯誤'],
    ['en-US', 'wrong user name or password', 'failed to get token, error notify: wrong user name or password',
      'failed to get token, retry later', 'Request error'],
  ])('in %s: the server message when it answered, retry later when it was not reached', async (language, local, answered, unreached, title) => {
    await i18n.changeLanguage(language);
    const refused = new Response(JSON.stringify({ code: 401, message: '用户名或密码错误 (wrong user name or password)',
      localMessage: local, data: null }), { status: 401 });
    vi.stubGlobal('fetch', vi.fn().mockResolvedValueOnce(refused).mockRejectedValueOnce(new TypeError('Failed to fetch')));
    expect((await signIn('ops', 'wrong-one1')).code).toBe(401);
    expect(effects.notifyError.mock.calls).toEqual([[title, answered]]); // once: the client's own notice is quiet
    session.setToken(TOKEN, 0);
    expect(await refreshTokenIfNeeded(3_600_000)).toBe('failed');
    expect(effects.notifyError.mock.calls[1]).toEqual([title, unreached]);
    expect(effects.notifyError).toHaveBeenCalledTimes(2);
  });
});
