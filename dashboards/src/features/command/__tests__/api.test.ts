import { afterEach, beforeEach, describe, expect, test, vi, type Mock } from 'vitest';
import { configureClientEffects } from '../../../api/effects';
import { commandUrl, readTerminalParams, sendCommand, videoChannels, waitForCommand } from '../api';

const ok = (data: unknown) => new Response(JSON.stringify({ code: 0, message: 'ok', data }), { status: 200, headers: { 'Content-Type': 'application/json' } });
let fetchMock: Mock<(url: string, init?: RequestInit) => Promise<Response>>;
let states: string[];
let restore: () => void;
const noSleep = () => Promise.resolve();

beforeEach(() => {
  states = ['created', 'sent', 'answered'];
  fetchMock = vi.fn(async (url: string) => {
    if (url.includes('/state.json')) return ok({ id: 7, state: states.shift() ?? 'answered', result: 0 });
    if (url.includes('/terminal/params.json')) return ok({ '0055': '0000003C' });
    return ok({ id: 7, deviceId: 11, msgId: 0x8104, state: 'created' });
  });
  vi.stubGlobal('fetch', fetchMock);
  restore = configureClientEffects({ notifyError: vi.fn() });
});
afterEach(() => {
  restore();
  vi.unstubAllGlobals();
});

describe('the command client', () => {
  test('posts to the car path (naming a device in the payload) or the device path', async () => {
    expect(commandUrl({ carId: 5 }, '8300')).toBe('/api/command/5/8300.json');
    expect(commandUrl({ deviceId: 11 }, '8104')).toBe('/api/device/11/command/8104.json');
    await sendCommand({ carId: 5, deviceId: 12 }, '8300', { content: 'x' });
    await sendCommand({ deviceId: 11 }, '8104');
    expect(fetchMock.mock.calls.map(([url, init]) => [url, init?.method, init?.body])).toEqual([
      ['/api/command/5/8300.json', 'POST', JSON.stringify({ content: 'x', deviceId: 12 })],
      ['/api/device/11/command/8104.json', 'POST', '{}'],
    ]);
  });

  test('polls the state until the command is answered', async () => {
    expect(await waitForCommand(7, { sleep: noSleep })).toMatchObject({ state: 'answered' });
    expect(fetchMock.mock.calls.filter(([url]) => url === '/api/command/7/state.json')).toHaveLength(3);
  });

  test('gives up after the timeout', async () => {
    states = Array(100).fill('sent');
    expect(await waitForCommand(7, { sleep: noSleep, intervalMs: 1000, timeoutMs: 5000 })).toBeNull();
  });

  test('reads parameters: 8104, wait for the answer, then the stored map', async () => {
    expect(await readTerminalParams({ deviceId: 11 }, 11, { sleep: noSleep })).toEqual({ kind: 'ok', values: { '0055': '0000003C' } });
    states = ['timed_out'];
    expect(await readTerminalParams({ deviceId: 11 }, 11, { sleep: noSleep })).toMatchObject({ kind: 'unanswered', state: { state: 'timed_out' } });
  });

  test('reads named parameters with 8106 (the active-safety blocks)', async () => {
    expect(await readTerminalParams({ deviceId: 11 }, 11, { sleep: noSleep, ids: ['F364'] })).toMatchObject({ kind: 'ok' });
    expect(fetchMock.mock.calls[0][0]).toBe('/api/device/11/command/8106.json');
    expect(fetchMock.mock.calls[0][1]?.body).toBe(JSON.stringify({ ids: ['F364'] }));
  });

  test('lists the video channels of a device, channel 1 when none is named', () => {
    expect(videoChannels({ videoChannel: '1, 2,3' })).toEqual([1, 2, 3]);
    expect(videoChannels({ videoChannel: null })).toEqual([1]);
  });
});
