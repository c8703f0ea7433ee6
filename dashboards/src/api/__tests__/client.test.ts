// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, test, vi, type Mock } from 'vitest';
import '../../i18n';
import { session } from '../../auth/session';
import { buildUrl, download, handleFailure, http, request } from '../client';
import { configureClientEffects } from '../effects';
import { failurePolicy, failureReply } from '../failure';

const jsonResponse = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

let effects: {
  notifyError: Mock<(title: string, message: string) => void>;
  navigate: Mock<(to: string) => void>;
  logout: Mock<() => void>;
};
let path = '/dashboard/map?plate=A1';
let restore: () => void;

beforeEach(() => {
  path = '/dashboard/map?plate=A1';
  effects = { notifyError: vi.fn(), navigate: vi.fn(), logout: vi.fn() };
  restore = configureClientEffects({ ...effects, currentPath: () => path });
  session.setToken({ access_token: 'tok-1', refresh_token: 'r', expires_in: 3600 });
});

afterEach(() => {
  restore();
  session.clear();
  vi.unstubAllGlobals();
});

describe('every request', () => {
  test('carries the Bearer token and JSON content type, and resolves the reply', async () => {
    const fetchMock = vi.fn().mockResolvedValue(jsonResponse({ code: 0, message: 'ok', data: [1] }));
    vi.stubGlobal('fetch', fetchMock);
    const reply = await http.post<number[]>('/api/x.json', { body: { a: 1 }, params: { page: 2, skip: undefined } });
    expect(reply).toEqual({ code: 0, message: 'ok', data: [1] });
    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(url).toBe('/api/x.json?page=2');
    expect(init.method).toBe('POST');
    expect(init.body).toBe('{"a":1}');
    const headers = init.headers as Record<string, string>;
    expect(headers.Authorization).toBe('Bearer tok-1');
    expect(headers['Content-Type']).toMatch(/^application\/json/);
    expect(effects.notifyError).not.toHaveBeenCalled();
  });

  test('query parameters are encoded and appended', () => {
    expect(buildUrl('/oauth2/token.json', { grant_type: 'password', username: 'a b&c' })).toBe(
      '/oauth2/token.json?grant_type=password&username=a+b%26c',
    );
    expect(buildUrl('/x?a=1', { b: 2 })).toBe('/x?a=1&b=2');
  });
});

describe('the failure policy', () => {
  test('a non-zero code shows the server message as an error notification titled 请求错误', async () => {
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(jsonResponse({ code: 1001, message: '车辆不存在', data: null })));
    const reply = await request('/api/car/1.json');
    expect(reply).toEqual({ code: 1001, message: '车辆不存在', data: null });
    expect(effects.notifyError).toHaveBeenCalledWith('请求错误', '车辆不存在');
    expect(effects.logout).not.toHaveBeenCalled();
  });

  test('40002 logs out and goes to login with redirect = the current full path', async () => {
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(jsonResponse({ code: 40002, message: '会话已失效', data: null }, 401)));
    const reply = await request('/api/user/current.json');
    expect(reply.code).toBe(40002);
    expect(effects.logout).toHaveBeenCalledTimes(1);
    expect(effects.navigate).toHaveBeenCalledWith(`/user/login?redirect=${encodeURIComponent('/dashboard/map?plate=A1')}`);
  });

  test('a quiet request shows no notification but still logs out on 40002', async () => {
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(jsonResponse({ code: 404, message: 'no such endpoint', data: null }, 404)));
    const missing = await request('/api/regeo/geocode.json', { quiet: true });
    expect(missing.code).toBe(404);
    expect(effects.notifyError).not.toHaveBeenCalled();
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(jsonResponse({ code: 40002, message: 'x', data: null }, 401)));
    await request('/api/system/mapConfig.json', { quiet: true });
    expect(effects.notifyError).not.toHaveBeenCalled();
    expect(effects.logout).toHaveBeenCalledTimes(1);
  });

  test('40002 on the login page does not log out again', async () => {
    path = '/user/login?redirect=%2Fa';
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(jsonResponse({ code: 40002, message: 'x', data: null }, 401)));
    await request('/oauth2/token.json');
    expect(effects.logout).not.toHaveBeenCalled();
    expect(effects.navigate).not.toHaveBeenCalled();
  });

  test('no response gives code 500 "network abnormal"', async () => {
    vi.stubGlobal('fetch', vi.fn().mockRejectedValue(new TypeError('Failed to fetch')));
    const reply = await request('/api/x.json');
    expect(reply).toEqual({ code: 500, message: '网络异常，无法连接服务器', data: null });
    expect(effects.notifyError).toHaveBeenCalledWith('请求错误', '网络异常，无法连接服务器');
  });

  test('a cancelled request resolves as code 0 with null data and shows nothing', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn((_url: string, init: RequestInit) =>
        new Promise((_resolve, reject) => {
          init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
        }),
      ),
    );
    const controller = new AbortController();
    const pending = request('/api/slow.json', { signal: controller.signal });
    controller.abort();
    expect(await pending).toEqual({ code: 0, message: '', data: null });
    expect(effects.notifyError).not.toHaveBeenCalled();
  });

  test('an HTTP error without a body uses the status table', async () => {
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(new Response('', { status: 502, statusText: 'Bad Gateway' })));
    const reply = await request('/api/x.json');
    expect(reply).toEqual({ code: 502, message: '网关错误。', data: null });
  });

  test('an HTTP error with an envelope uses its code and message', async () => {
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(jsonResponse({ code: 403, message: '没有权限', data: null }, 403)));
    expect(await request('/api/x.json')).toEqual({ code: 403, message: '没有权限', data: null });
  });

  test('an unknown status without a body falls back to the status text', () => {
    const t = (key: string) => key;
    expect(failureReply({ kind: 'http', status: 418, statusText: "I'm a teapot" }, t).message).toBe("I'm a teapot");
    expect(failureReply({ kind: 'http', status: 400, statusText: '', body: { error: 'bad field' } }, t).message).toBe('bad field');
  });

  test('the policy in one table', () => {
    const reply = (code: number) => ({ code, message: '', data: null });
    expect(failurePolicy({ kind: 'cancel' }, reply(0), false)).toEqual({ notify: false, logout: false });
    expect(failurePolicy({ kind: 'network' }, reply(500), false)).toEqual({ notify: true, logout: false });
    expect(failurePolicy({ kind: 'reply', reply: reply(1) }, reply(1), false)).toEqual({ notify: true, logout: false });
    expect(failurePolicy({ kind: 'reply', reply: reply(40002) }, reply(40002), false)).toEqual({ notify: true, logout: true });
    expect(failurePolicy({ kind: 'reply', reply: reply(40002) }, reply(40002), true)).toEqual({ notify: true, logout: false });
  });

  test('handleFailure is the single entry point for callers outside request()', () => {
    expect(handleFailure({ kind: 'cancel' })).toEqual({ code: 0, message: '', data: null });
    expect(effects.notifyError).not.toHaveBeenCalled();
  });
});

describe('forms, uploads and downloads', () => {
  test("a failed reply keeps the server's data, where a form finds the field it names", async () => {
    const body = { code: 409, message: 'code 已存在', data: { field: 'code' } };
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(jsonResponse(body, 409)));
    expect(await request('/api/common/carModel.json', { method: 'POST', body: {}, quiet: true })).toEqual(body);
    expect(effects.notifyError).not.toHaveBeenCalled();
  });

  test('a FormData body is sent as is, without the JSON content type', async () => {
    const fetchMock = vi.fn().mockResolvedValue(jsonResponse({ code: 0, message: 'ok', data: null }));
    vi.stubGlobal('fetch', fetchMock);
    const form = new FormData();
    form.append('file', new Blob(['a']), 'a.csv');
    await http.post('/api/common/import/carModel.json', { body: form });
    const init = fetchMock.mock.calls[0][1] as RequestInit;
    expect(init.body).toBe(form);
    expect(init.headers).toEqual({ Accept: 'application/json', Authorization: 'Bearer tok-1', 'X-Fleet-Language': 'zh-CN' });
  });

  test('download answers the blob and the file name of Content-Disposition, with the bearer token', async () => {
    const fetchMock = vi.fn().mockResolvedValue(
      new Response('a,b', { headers: { 'Content-Disposition': "attachment; filename*=UTF-8''%E8%BD%A6%E8%BE%86.csv" } }),
    );
    vi.stubGlobal('fetch', fetchMock);
    const file = await download('/api/common/export/carModel.csv', 'carModel.csv', { method: 'POST', params: { orderBy: 'name' }, body: {} });
    expect(file?.fileName).toBe('车辆.csv');
    expect(await file?.blob.text()).toBe('a,b');
    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(url).toBe('/api/common/export/carModel.csv?orderBy=name');
    expect((init.headers as Record<string, string>).Authorization).toBe('Bearer tok-1');
  });

  test('a failed download goes through the failure handler and answers null', async () => {
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(jsonResponse({ code: 403, message: '没有权限', data: null }, 403)));
    expect(await download('/api/common/export/carModel.xlsx', 'x.xlsx')).toBeNull();
    expect(effects.notifyError).toHaveBeenCalledWith('请求错误', '没有权限');
  });
});
