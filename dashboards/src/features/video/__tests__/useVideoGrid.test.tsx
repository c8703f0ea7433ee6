import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, test, vi, type Mock } from 'vitest';
import '../../../i18n';
import { configureClientEffects } from '../../../api/effects';
import AppProviders from '../../../components/AppProviders';
import { SettingsProvider } from '../../../layouts/settings/SettingsContext';
import { useVideoGrid } from '../useVideoGrid';
import { entryKey, type VideoEntry } from '../windows';

vi.mock('../playerController', () => ({ liveStreamingSupported: () => true }));
vi.setConfig({ testTimeout: 30_000 });

const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
const entry = (deviceId: number, channelId: number, carId = 7): VideoEntry => ({
  key: entryKey(deviceId, channelId), carId, deviceId, deviceSn: `SN${deviceId}`, plateNumber: 'P', channelId, dataType: 0, streamType: 1,
});

let fetchMock: Mock<(url: string, init?: RequestInit) => Promise<Response>>;
let restoreEffects: () => void;

beforeEach(() => {
  fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
    const started = /\/api\/command\/(\d+)\/9101\.json/.exec(url);
    if (started) {
      const body = JSON.parse(String(init?.body)) as { channelId: number; deviceId: number };
      const streamId = `${body.deviceId}-${body.channelId}-live`;
      return json({ code: 0, message: 'ok', data: { id: 1, streamId, flvUrl: 'http://m/x.flv', wsUrl: 'ws://m/x.flv', urlExpiresAt: Date.now() + 120_000, kind: 'live', channelId: body.channelId, deviceId: body.deviceId, state: 'created' } });
    }
    return json({ code: 0, message: 'ok', data: { state: 'sent' } });
  });
  vi.stubGlobal('fetch', fetchMock);
  restoreEffects = configureClientEffects({ notifyError: vi.fn() });
});
afterEach(() => {
  restoreEffects();
  vi.unstubAllGlobals();
});

const wrapper = ({ children }: { children: ReactNode }) => <SettingsProvider><AppProviders>{children}</AppProviders></SettingsProvider>;
const calls = (code: string) => fetchMock.mock.calls.filter(([url]) => url.includes(`/${code}.json`)).map(([, init]) => JSON.parse(String(init?.body)));

describe('the live video grid', () => {
  test('starts several channels in turn, each in its own window, with 9101', async () => {
    const { result } = renderHook(() => useVideoGrid(4), { wrapper });
    await act(() => result.current.open([entry(11, 1), entry(11, 2), entry(11, 3)], () => true));
    expect(calls('9101').map((b) => b.channelId)).toEqual([1, 2, 3]);
    await waitFor(() => expect(result.current.slots.slice(0, 3).every((s) => s?.stream)).toBe(true));
    expect(result.current.slots.map((s) => s?.stream?.streamId ?? null).slice(0, 3)).toEqual(['11-1-live', '11-2-live', '11-3-live']);
  });

  test('refuses an offline device and a channel already playing, without a command', async () => {
    const { result } = renderHook(() => useVideoGrid(4), { wrapper });
    await act(() => result.current.open([entry(11, 1)], () => false));
    expect(calls('9101')).toEqual([]);
    await act(() => result.current.open([entry(11, 1)], () => true));
    await act(() => result.current.open([entry(11, 1)], () => true));
    expect(calls('9101')).toHaveLength(1);
  });

  test('stops with 9102 and clears the window; removing a car stops every channel of it', async () => {
    const { result } = renderHook(() => useVideoGrid(4), { wrapper });
    await act(() => result.current.open([entry(11, 1), entry(12, 1), entry(21, 1, 8)], () => true));
    await waitFor(() => expect(result.current.slots.filter((s) => s?.stream)).toHaveLength(3));
    await act(() => result.current.close(0));
    expect(calls('9102')).toEqual([{ streamId: '11-1-live', channelId: 1, command: 0, commadType: 0, streamType: 0, deviceId: 11 }]);
    expect(result.current.slots[0]).toBeNull();
    await act(() => result.current.closeWhere((e) => e.carId === 7));
    expect(calls('9102').map((b) => b.streamId)).toEqual(['11-1-live', '12-1-live']);
    expect(result.current.slots.filter(Boolean).map((s) => s?.entry.key)).toEqual(['21-1']);
  });
});

describe('the live video grid on a page that is not on screen', () => {
  test('closes its windows with 9102 once the page stayed inactive for the grace, not before', async () => {
    const { PageActiveContext } = await import('../../../layouts/tabs/PageShown');
    let active = true;
    const inTab = ({ children }: { children: ReactNode }) => <PageActiveContext.Provider value={active}>{wrapper({ children })}</PageActiveContext.Provider>;
    const { result, rerender } = renderHook(() => useVideoGrid(4), { wrapper: inTab });
    await act(() => result.current.open([entry(11, 1), entry(11, 2)], () => true));
    await waitFor(() => expect(result.current.slots.filter((s) => s?.stream)).toHaveLength(2));
    vi.useFakeTimers();
    try {
      active = false; // the user opened another tab of the console
      rerender();
      await act(async () => { vi.advanceTimersByTime(14_000); });
      expect(calls('9102')).toEqual([]);
      await act(async () => { vi.advanceTimersByTime(1_500); });
    } finally {
      vi.useRealTimers();
    }
    await waitFor(() => expect(calls('9102').map((b) => b.streamId).sort()).toEqual(['11-1-live', '11-2-live']));
    expect(result.current.slots.every((s) => s === null)).toBe(true);
  });
});

describe('a refused start', () => {
  test('keeps the window with its reason and sends no 9102 to the terminal that refused', async () => {
    const { result } = renderHook(() => useVideoGrid(4), { wrapper });
    await act(() => result.current.open([entry(12, 1)], () => true));
    await waitFor(() => expect(result.current.slots[0]?.stream).toBeTruthy());
    act(() => result.current.refuse(0, 'unsupported'));
    expect(result.current.slots[0]?.refused).toBe('unsupported');
    await act(() => result.current.close(0));
    expect(calls('9102')).toEqual([]);
    expect(result.current.slots[0]).toBeNull();
  });
});
