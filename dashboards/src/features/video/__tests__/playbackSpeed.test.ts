import { afterEach, beforeEach, describe, expect, test, vi, type Mock } from 'vitest';
import { configureClientEffects } from '../../../api/effects';
import { askSpeed } from '../playbackSpeed';

vi.setConfig({ testTimeout: 30_000 });
const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });

let fetchMock: Mock<(url: string, init?: RequestInit) => Promise<Response>>;
let answer: { state: string; result: number | null };
let restoreEffects: () => void;

beforeEach(() => {
  answer = { state: 'answered', result: 0 };
  fetchMock = vi.fn(async (url: string) => {
    if (url.includes('/9202.json')) return json({ code: 0, message: 'ok', data: { id: 41, streamId: '5-1-playback', state: 'created' } });
    if (url.includes('/api/video/command/41/state.json')) return json({ code: 0, message: 'ok', data: { id: 41, ...answer, reply: null, streamId: '5-1-playback' } });
    return json({ code: 404, message: 'no', data: null });
  });
  vi.stubGlobal('fetch', fetchMock);
  restoreEffects = configureClientEffects({ notifyError: vi.fn() });
});
afterEach(() => {
  restoreEffects();
  vi.unstubAllGlobals();
});

const sent = () => fetchMock.mock.calls.filter(([url]) => url.includes('/9202.json')).map(([, init]) => JSON.parse(String(init?.body)));

describe('a playback speed change waits for the terminal', () => {
  test.each([
    [0.7, { control: 0, speed: 1 }],
    [1, { control: 0, speed: 1 }],
    [1.5, { control: 3, speed: 2 }],
    [2, { control: 3, speed: 2 }],
  ])('rate %s asks the terminal %o and is taken once it accepted', async (rate, wire) => {
    await expect(askSpeed({ carId: 9, deviceId: 5 }, 1, rate)).resolves.toEqual({ ok: true });
    expect(sent()).toEqual([{ channelId: 1, ...wire, deviceId: 5 }]);
  });

  test('a terminal answering unsupported refuses the rate', async () => {
    answer = { state: 'answered', result: 3 };
    await expect(askSpeed({ carId: 9, deviceId: 5 }, 1, 2)).resolves.toEqual({ ok: false, refusal: 'unsupported' });
  });

  test('a terminal that does not answer refuses it too', async () => {
    answer = { state: 'timed_out', result: null };
    await expect(askSpeed({ carId: 9, deviceId: 5 }, 1, 2)).resolves.toEqual({ ok: false, refusal: 'unanswered' });
  });
});
