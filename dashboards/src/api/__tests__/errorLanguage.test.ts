// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, test, vi, type Mock } from 'vitest';
import i18n from '../../i18n';
import { session } from '../../auth/session';
import { signIn } from '../../auth/sessionService';
import { LANGUAGE_HEADER, request } from '../client';
import { configureClientEffects } from '../effects';
import { failureReply } from '../failure';

const jsonResponse = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
// message is the spec's Chinese text for every caller; localMessage the text in the caller's language
const WRONG = { code: 401, message: '用户名或密码错误', localMessage: 'wrong user name or password', data: null };

let notifyError: Mock<(title: string, message: string) => void>;
let clearErrors: Mock<() => void>;
let restore: () => void;

beforeEach(async () => {
  await i18n.changeLanguage('en-US');
  notifyError = vi.fn();
  clearErrors = vi.fn();
  restore = configureClientEffects({ notifyError, clearErrors, navigate: vi.fn(), currentPath: () => '/user/login' });
});

afterEach(async () => {
  restore();
  session.clear();
  vi.unstubAllGlobals();
  await i18n.changeLanguage('zh-CN');
});

describe('server errors in the user language', () => {
  test('every request names the console language, so the server can answer in it', async () => {
    const fetchMock = vi.fn().mockResolvedValue(jsonResponse({ code: 0, message: 'ok', data: null }));
    vi.stubGlobal('fetch', fetchMock);
    await request('/api/x.json');
    const [, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect((init.headers as Record<string, string>)[LANGUAGE_HEADER]).toBe('en-US');
  });

  test('an error shows the server message in the user language under a translated title', async () => {
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(jsonResponse(WRONG, 401)));
    const reply = await request('/oauth2/token.json');
    expect(reply.message).toBe('wrong user name or password');
    expect(notifyError).toHaveBeenCalledWith('Request error', 'wrong user name or password');
    expect(notifyError.mock.calls[0].join(' ')).not.toMatch(/请求错误|用户名/);
  });

  test('a 200 reply with an error code uses its localMessage too; without one, the Chinese message', () => {
    const t = (key: string) => key;
    expect(failureReply({ kind: 'reply', reply: { code: 409, message: '记录已存在', localMessage: 'record already exists', data: null } }, t).message).toBe(
      'record already exists',
    );
    expect(failureReply({ kind: 'reply', reply: { code: 409, message: '记录已存在', data: null } }, t).message).toBe('记录已存在');
    expect(failureReply({ kind: 'http', status: 503, statusText: '', body: { code: 503, message: '来自同一地址（10.1.2.3）的连接过多' } }, t).message).toBe(
      '来自同一地址（10.1.2.3）的连接过多',
    );
  });

  test('a 403 keeps the missing permission of data for the caller', () => {
    const t = (key: string) => key;
    const body = { code: 403, message: '用户得到授权，但是访问是被禁止的。', localMessage: 'permission denied: car:update', data: { permission: 'car:update' } };
    expect(failureReply({ kind: 'http', status: 403, statusText: '', body }, t)).toEqual({
      code: 403,
      message: 'permission denied: car:update',
      data: { permission: 'car:update' },
    });
  });
});

describe('sign-in errors', () => {
  const TOKEN = { access_token: 'a1', refresh_token: 'r1', expires_in: 3600, create_time: 0, token_type: 'bearer' };
  const USER = { id: 7, userName: 'ops', permissions: [{ code: 'monitor', actions: ['query'] }], routes: [] };
  const ok = (data: unknown) => jsonResponse({ code: 0, message: 'ok', data });

  test('a failed sign-in leaves its error; the next successful one clears it', async () => {
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(jsonResponse(WRONG, 401)));
    expect((await signIn('ops', 'bad')).code).toBe(401);
    expect(notifyError).toHaveBeenCalledTimes(1);
    expect(clearErrors).not.toHaveBeenCalled();
    vi.stubGlobal('fetch', vi.fn().mockResolvedValueOnce(ok(TOKEN)).mockResolvedValueOnce(ok(USER)));
    expect((await signIn('ops', 'good')).code).toBe(0);
    expect(clearErrors).toHaveBeenCalledTimes(1);
  });
});
