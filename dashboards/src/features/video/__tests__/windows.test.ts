import { afterEach, describe, expect, it, vi } from 'vitest';
import { StreamHeartbeat } from '../heartbeat';
import { suspectedAbnormal, urlsExpired } from '../liveness';
import { allocate, clearWhere, entryKey, layoutFor, StartQueue, type VideoEntry } from '../windows';

const entry = (deviceId: number, channelId: number, carId = deviceId): VideoEntry => ({
  key: entryKey(deviceId, channelId), carId, deviceId, deviceSn: `SN${deviceId}`, plateNumber: `P${carId}`, channelId, dataType: 0, streamType: 1,
});

describe('live video windows', () => {
  it('puts a channel in the first free window', () => {
    const first = allocate([], 4, entry(1, 1), true);
    expect(first).toMatchObject({ ok: true, index: 0, layout: 4 });
    const second = first.ok ? allocate(first.windows, 4, entry(1, 2), true) : null;
    expect(second).toMatchObject({ ok: true, index: 1 });
  });

  it('takes the chosen window when it is free', () => {
    expect(allocate([], 4, entry(1, 1), true, 3)).toMatchObject({ ok: true, index: 3 });
  });

  it('refuses the same device and channel already playing, an offline device, and a 17th window', () => {
    const one = allocate([], 4, entry(1, 1), true);
    if (!one.ok) throw new Error('expected a window');
    expect(allocate(one.windows, 4, entry(1, 1), true)).toEqual({ ok: false, refusal: 'playing' });
    expect(allocate(one.windows, 4, entry(2, 1), false)).toEqual({ ok: false, refusal: 'offline' });
    const full = Array.from({ length: 16 }, (_, i) => entry(10 + i, 1));
    expect(allocate(full, 16, entry(99, 1), true)).toEqual({ ok: false, refusal: 'full' });
  });

  it('grows the layout when every window of the current one plays', () => {
    const four = [entry(1, 1), entry(1, 2), entry(1, 3), entry(1, 4)];
    expect(allocate(four, 4, entry(2, 1), true)).toMatchObject({ ok: true, index: 4, layout: 6 });
    expect(layoutFor(11)).toBe(16);
    expect(layoutFor(1)).toBe(1);
  });

  it('clears every channel of a car (removing a car stops all video of every device of it)', () => {
    const windows = [entry(1, 1, 7), entry(2, 1, 7), entry(3, 1, 8)];
    expect(clearWhere(windows, (e) => e.carId === 7)).toEqual([null, null, windows[2]]);
  });
});

describe('start queue', () => {
  afterEach(() => vi.useRealTimers());

  it('starts channels in turn, each after its delay and after the previous finished', async () => {
    const log: string[] = [];
    const slept: number[] = [];
    const queue = new StartQueue(async (ms) => {
      slept.push(ms);
    });
    let release!: () => void;
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    void queue.add(100, async () => {
      log.push('a:start');
      await slow;
      log.push('a:end');
    });
    const last = queue.add(500, async () => {
      log.push('b');
    });
    await Promise.resolve();
    await Promise.resolve();
    expect(log).toEqual(['a:start']);
    release();
    await last;
    expect(log).toEqual(['a:start', 'a:end', 'b']);
    expect(slept).toEqual([100, 500]);
  });

  it('drops the tasks not started when cleared', async () => {
    const log: string[] = [];
    const queue = new StartQueue(async () => undefined);
    const done = queue.add(100, async () => {
      log.push('x');
    });
    queue.clear();
    await done;
    expect(log).toEqual([]);
  });
});

describe('heartbeat', () => {
  afterEach(() => vi.useRealTimers());

  it('sends every held stream id every 5 s and stops when none is held', () => {
    vi.useFakeTimers();
    const sent: string[][] = [];
    const beat = new StreamHeartbeat((ids) => sent.push([...ids]), 5000);
    const a = beat.hold('1-1-live');
    const b = beat.hold('2-1-talk');
    const a2 = beat.hold('1-1-live');
    vi.advanceTimersByTime(5000);
    expect(sent).toEqual([['1-1-live', '2-1-talk']]);
    a();
    a(); // a release counts once
    vi.advanceTimersByTime(5000);
    expect(sent[1]).toEqual(['1-1-live', '2-1-talk']);
    a2();
    b();
    vi.advanceTimersByTime(20_000);
    expect(sent).toHaveLength(2);
  });
});

describe('stream liveness', () => {
  it('suspects a stream whose update time lags over 5 s or is missing', () => {
    expect(suspectedAbnormal({ updateTime: 10_000, currentTime: 15_000 }, 0)).toBe(false);
    expect(suspectedAbnormal({ updateTime: 10_000, currentTime: 15_001 }, 0)).toBe(true);
    expect(suspectedAbnormal({ updateTime: null, currentTime: 1 }, 0)).toBe(true);
    expect(suspectedAbnormal(null, 0)).toBe(true);
  });

  it('refreshes signed URLs that expired (or are about to)', () => {
    expect(urlsExpired(10_000, 5000)).toBe(false);
    expect(urlsExpired(10_000, 8500)).toBe(true);
    expect(urlsExpired(undefined, 0)).toBe(true);
  });
});
