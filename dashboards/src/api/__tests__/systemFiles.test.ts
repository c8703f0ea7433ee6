// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, test, vi, type Mock } from 'vitest';
import '../../i18n';
import { session } from '../../auth/session';
import { configureClientEffects } from '../effects';
import { act, renderHook, waitFor } from '@testing-library/react';
import { openFirstContent, resetFirstContent } from '../../router/firstContent';
import { loadSystemFile, SYSTEM_FILES_KEY, systemFileUrl, useSystemFileUrl } from '../systemFiles';

const jsonResponse = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
const MANUAL = { name: 'userManual-en-US', path: '/manual/en-US.html', modifyTime: 1780000000250 };

let notifyError: Mock<(title: string, message: string) => void>;
let restore: () => void;

beforeEach(() => {
  notifyError = vi.fn();
  restore = configureClientEffects({ notifyError, navigate: vi.fn(), logout: vi.fn(), currentPath: () => '/dashboard/index' });
  session.setToken({ access_token: 'tok-1', refresh_token: 'r', expires_in: 3600 });
});

afterEach(() => {
  resetFirstContent();
  restore();
  session.clear();
  vi.unstubAllGlobals();
});

describe('system files (console-spec §7 GET /api/common/systemFile/{name}.json)', () => {
  test('a file is linked as path?t=modifyTime', () => {
    expect(systemFileUrl(MANUAL)).toBe('/manual/en-US.html?t=1780000000250');
    expect(systemFileUrl({ path: '/x.html?a=1', modifyTime: 5 })).toBe('/x.html?a=1&t=5');
  });

  test('asked once per session: later calls, and calls at the same time, share the answer', async () => {
    const fetchMock = vi.fn().mockImplementation(() => Promise.resolve(jsonResponse({ code: 0, message: 'ok', data: MANUAL })));
    vi.stubGlobal('fetch', fetchMock);
    const [first, second] = await Promise.all([loadSystemFile('userManual-en-US'), loadSystemFile('userManual-en-US')]);
    expect(first).toEqual(MANUAL);
    expect(second).toEqual(MANUAL);
    expect(await loadSystemFile('userManual-en-US')).toEqual(MANUAL);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(url).toBe('/api/common/systemFile/userManual-en-US.json');
    expect((init.headers as Record<string, string>).Authorization).toBe('Bearer tok-1');
    expect(JSON.parse(sessionStorage.getItem(SYSTEM_FILES_KEY) ?? '{}')).toEqual({ 'userManual-en-US': MANUAL });
  });

  test('a logout drops the answers: the next sign-in asks again', async () => {
    const fetchMock = vi.fn().mockImplementation(() => Promise.resolve(jsonResponse({ code: 0, message: 'ok', data: MANUAL })));
    vi.stubGlobal('fetch', fetchMock);
    await loadSystemFile('userManual-en-US');
    session.clear();
    expect(sessionStorage.getItem(SYSTEM_FILES_KEY)).toBeNull();
    session.setToken({ access_token: 'tok-2', refresh_token: 'r', expires_in: 3600 });
    await loadSystemFile('userManual-en-US');
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  test('an answer without a path and modifyTime is not used', async () => {
    vi.stubGlobal('fetch', vi.fn().mockImplementation(() => Promise.resolve(jsonResponse({ code: 0, message: 'ok', data: { path: 5 } }))));
    expect(await loadSystemFile('logo')).toBeNull();
    expect(sessionStorage.getItem(SYSTEM_FILES_KEY)).toBeNull();
  });

  test('before sign-in nothing is asked, and an unknown file is null without an error shown', async () => {
    const fetchMock = vi.fn().mockImplementation(() =>
      Promise.resolve(jsonResponse({ code: 404, message: '系统文件 nosuch 不存在', data: null }, 404)));
    vi.stubGlobal('fetch', fetchMock);
    expect(await loadSystemFile('nosuch')).toBeNull();
    expect(notifyError).not.toHaveBeenCalled();
    expect(sessionStorage.getItem(SYSTEM_FILES_KEY)).toBeNull();
    session.clear();
    expect(await loadSystemFile('logo')).toBeNull();
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  test('the logo is asked only after the opening page first content; a known answer is linked at once', async () => {
    const LOGO = { name: 'logo', path: '/favicon.svg', modifyTime: 1780000000999 };
    const fetchMock = vi.fn().mockImplementation(() => Promise.resolve(jsonResponse({ code: 0, message: 'ok', data: LOGO })));
    vi.stubGlobal('fetch', fetchMock);
    const first = renderHook(() => useSystemFileUrl('logo', '/favicon.svg'));
    await act(async () => { await Promise.resolve(); });
    expect(fetchMock).not.toHaveBeenCalled(); // the report's rows first
    expect(first.result.current).toBe('/favicon.svg');
    act(() => openFirstContent());
    await waitFor(() => expect(first.result.current).toBe('/favicon.svg?t=1780000000999'));
    expect(fetchMock).toHaveBeenCalledTimes(1);
    first.unmount();

    resetFirstContent(); // another page's shell in the same session: the answer kept, no call, no wait
    const again = renderHook(() => useSystemFileUrl('logo', '/favicon.svg'));
    expect(again.result.current).toBe('/favicon.svg?t=1780000000999');
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });
});
