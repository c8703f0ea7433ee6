import { afterEach, beforeEach, describe, expect, test, vi, type Mock } from 'vitest';
import { configureClientEffects } from '../../../api/effects';
import type { TalkState } from '../talkModel';
import { TalkSessionController, talkInProgress } from '../talkSession';

let onBlock: ((block: Float32Array) => void) | null = null;
const micStop = vi.fn();
vi.mock('../micCapture', () => ({
  MicFailure: class extends Error {},
  openMicrophone: vi.fn(async (block: (b: Float32Array) => void) => {
    onBlock = block;
    return { sampleRate: 8000, stop: micStop };
  }),
}));

class FakeSocket {
  static OPEN = 1;
  static last: FakeSocket | null = null;
  readyState = 0;
  binaryType = 'blob';
  sent: Uint8Array[] = [];
  closed = false;
  onopen: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onclose: (() => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.last = this;
  }
  send(data: Uint8Array) {
    this.sent.push(data);
  }
  close() {
    this.closed = true;
  }
  open() {
    this.readyState = 1;
    this.onopen?.();
  }
}

const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
let fetchMock: Mock<(url: string, init?: RequestInit) => Promise<Response>>;
let restoreEffects: () => void;
const target = { carId: 5, deviceId: 11, deviceSn: 'SN11', phone: '013800000011', plateNumber: '京A00005' };

beforeEach(() => {
  vi.useFakeTimers();
  fetchMock = vi.fn(async (url: string) => {
    if (url.includes('/9101.json')) {
      return json({ code: 0, message: 'ok', data: { id: 1, streamId: '11-1-talk', flvUrl: 'http://m/t.flv', wsUrl: 'ws://m/t.flv', talkUrl: 'ws://m/talk/11-1-talk?token=x', urlExpiresAt: Date.now() + 120_000, kind: 'talk', channelId: 1, deviceId: 11, state: 'created' } });
    }
    if (url.startsWith('/api/video/SN11/1.json')) return json({ code: 0, message: 'ok', data: { streamId: '11-1-talk', updateTime: null, currentTime: Date.now() } });
    return json({ code: 0, message: 'ok', data: { state: 'sent' } });
  });
  vi.stubGlobal('fetch', fetchMock);
  vi.stubGlobal('WebSocket', FakeSocket);
  restoreEffects = configureClientEffects({ notifyError: vi.fn() });
});
afterEach(() => {
  restoreEffects();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

const bodies = (code: string) => fetchMock.mock.calls.filter(([url]) => url.includes(`/${code}.json`)).map(([, init]) => JSON.parse(String(init?.body)));

describe('a talk session', () => {
  test('microphone, 9101 talk, the socket 5 s later, 1078 frames while talking, then stop with 9102 command 4', async () => {
    const states: TalkState[] = [];
    const messages: string[] = [];
    const session = new TalkSessionController(target, 1, { state: (s) => states.push(s), message: (m) => messages.push(m), player: vi.fn() });
    expect(session.start()).toBe(true);
    await vi.advanceTimersByTimeAsync(10);
    expect(bodies('9101')).toEqual([{ channelId: 1, dataType: 2, streamType: 1, deviceId: 11 }]);
    expect(session.state.status).toBe('connecting');
    await vi.advanceTimersByTimeAsync(4900);
    expect(FakeSocket.last).toBeNull();
    await vi.advanceTimersByTimeAsync(200);
    const socket = FakeSocket.last as unknown as FakeSocket;
    expect(socket.url).toBe('ws://m/talk/11-1-talk?token=x');
    socket.open();
    expect(session.state.status).toBe('talking');
    expect(messages).toContain('speak');
    onBlock?.(new Float32Array(640).fill(0.1));
    expect(socket.sent.map((p) => p.length)).toEqual([666, 666]);
    expect(Array.from(socket.sent[1].subarray(6, 8))).toEqual([0, 1]);
    expect(talkInProgress()).toBe(true);

    session.stop();
    expect(socket.closed).toBe(true);
    await vi.advanceTimersByTimeAsync(10);
    expect(bodies('9102')).toEqual([{ streamId: '11-1-talk', channelId: 1, command: 4, commadType: 0, streamType: 1, deviceId: 11 }]);
    expect(session.state.status).toBe('ended');
    expect(messages.at(-1)).toBe('ended');
    expect(micStop).toHaveBeenCalled();
    expect(talkInProgress()).toBe(false);
  });

  test('allows one talk at a time', async () => {
    const first = new TalkSessionController(target, 1, { state: vi.fn(), message: vi.fn(), player: vi.fn() });
    const messages: string[] = [];
    const second = new TalkSessionController({ ...target, deviceId: 12 }, 1, { state: vi.fn(), message: (m) => messages.push(m), player: vi.fn() });
    first.start();
    expect(second.start()).toBe(false);
    expect(messages).toEqual(['busy']);
    first.stop();
    await vi.advanceTimersByTimeAsync(10);
  });

  test('gives up after 15 stream checks without the terminal', async () => {
    const messages: string[] = [];
    const session = new TalkSessionController(target, 1, { state: vi.fn(), message: (m) => messages.push(m), player: vi.fn() });
    session.start();
    // The socket is made at 5 s but never opens, and the stream info never shows the terminal.
    await vi.advanceTimersByTimeAsync(14_500);
    expect(session.state.status).toBe('connecting');
    await vi.advanceTimersByTimeAsync(1000);
    expect(session.state.status).toBe('failed');
    expect(messages.at(-1)).toBe('answerTimeout');
  });
});
