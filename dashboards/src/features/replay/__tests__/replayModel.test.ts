import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ReplayClock, type FrameScheduler } from '../replayClock';
import {
  DEFAULT_SPEED,
  defaultSpeedFor,
  initialState,
  pause,
  play,
  restart,
  resume,
  seek,
  setSpeed,
  SPEED_OPTIONS,
  start,
  stepPoints,
  tick,
} from '../replayModel';

describe('the step formula (console-spec §9)', () => {
  it('is round(speed × elapsed ms / 10000)', () => {
    expect(stepPoints(10, 1000)).toBe(1);
    expect(stepPoints(10, 1449)).toBe(1);
    expect(stepPoints(10, 1500)).toBe(2);
    expect(stepPoints(100, 16)).toBe(0);
    expect(stepPoints(1000, 16)).toBe(2);
    expect(stepPoints(10, 0)).toBe(0);
  });

  it('defaults to speed 10', () => {
    expect(initialState(5).speed).toBe(DEFAULT_SPEED);
    expect(DEFAULT_SPEED).toBe(10);
  });
});

describe('the replay state machine', () => {
  const loaded = initialState(100);

  it('starts stopped without a marker', () => {
    expect(loaded.status).toBe('stopped');
    expect(loaded.index).toBeNull();
  });

  it('start places the marker at the first point and plays', () => {
    const s = start(loaded, 1000);
    expect(s.status).toBe('playing');
    expect(s.index).toBe(0);
  });

  it('playing moves the marker by the step formula from the start', () => {
    const s = tick(start(loaded, 1000), 1000 + 5000);
    expect(s.index).toBe(5); // 10 × 5000 / 10000
    expect(s.status).toBe('playing');
  });

  it('pause keeps the marker where it is, however long it stays paused', () => {
    const paused = pause(start(loaded, 0), 3000);
    expect(paused.status).toBe('paused');
    expect(paused.index).toBe(3);
    expect(tick(paused, 60_000).index).toBe(3);
  });

  it('resume continues from the elapsed time', () => {
    const paused = pause(start(loaded, 0), 3400); // 3.4 s elapsed: point 3
    const resumed = resume(paused, 100_000);
    expect(resumed.status).toBe('playing');
    expect(tick(resumed, 100_000).index).toBe(3);
    // 0.1 s more makes 3.5 s elapsed in total: round(3.5) = 4, not a fresh count from 0
    expect(tick(resumed, 100_100).index).toBe(4);
  });

  it('play starts when stopped and resumes when paused', () => {
    expect(play(loaded, 0).index).toBe(0);
    const paused = pause(start(loaded, 0), 2000);
    expect(tick(play(paused, 10_000), 11_000).index).toBe(3);
  });

  it('a speed change while playing keeps the points covered and goes on at the new speed', () => {
    const playing = start(loaded, 0);
    const faster = setSpeed(playing, 100, 4000); // 4 points covered at speed 10
    expect(faster.speed).toBe(100);
    expect(faster.index).toBe(4);
    expect(faster.status).toBe('playing');
    expect(tick(faster, 5000).index).toBe(14); // + 100 × 1000 / 10000
  });

  it('a speed change while paused applies on resume', () => {
    const paused = setSpeed(pause(start(loaded, 0), 2000), 50, 2000);
    expect(paused.status).toBe('paused');
    expect(paused.index).toBe(2);
    expect(tick(resume(paused, 9000), 10_000).index).toBe(7);
  });

  it('reaching the end pauses on the last point and resets the index for the next play', () => {
    const end = tick(start(initialState(10), 0), 20_000);
    expect(end.status).toBe('paused');
    expect(end.index).toBe(9);
    expect(end.ended).toBe(true);
    const again = resume(end, 30_000);
    expect(again.status).toBe('playing');
    expect(again.index).toBe(0);
    expect(tick(again, 31_000).index).toBe(1);
  });

  it('restart clears the marker and starts again after 500 ms', () => {
    const playing = tick(start(loaded, 0), 5000);
    const restarting = restart(playing, 5000);
    expect(restarting.index).toBeNull();
    expect(restarting.status).toBe('stopped');
    expect(tick(restarting, 5499).index).toBeNull();
    const started = tick(restarting, 5500);
    expect(started.status).toBe('playing');
    expect(started.index).toBe(0);
  });

  it('seek moves the marker; playing continues from there, otherwise it pauses there', () => {
    const playing = seek(start(loaded, 0), 50, 1000);
    expect(playing.index).toBe(50);
    expect(tick(playing, 2000).index).toBe(51);
    const stopped = seek(loaded, 20, 0);
    expect(stopped.status).toBe('paused');
    expect(stopped.index).toBe(20);
    expect(seek(loaded, 500, 0).index).toBe(99);
    expect(seek(loaded, -3, 0).index).toBe(0);
  });

  it('an empty timeline never plays', () => {
    expect(start(initialState(0), 0).status).toBe('stopped');
  });
});

describe('the default speed of a track', () => {
  it('keeps the spec speed ×10 for a short track', () => {
    expect(defaultSpeedFor(0)).toBe(DEFAULT_SPEED);
    expect(defaultSpeedFor(121)).toBe(DEFAULT_SPEED); // two minutes at ×10 already
  });

  it("plays a day's track in a minute or two, not 19 minutes, at one of the listed speeds", () => {
    for (const points of [1140, 2000, 10000]) {
      const speed = defaultSpeedFor(points);
      expect(SPEED_OPTIONS).toContain(speed);
      const playS = ((points - 1) * 10000) / speed / 1000;
      expect(playS).toBeLessThanOrEqual(120);
    }
    expect(defaultSpeedFor(1140)).toBe(100); // 114 s instead of 1,140 s at ×10
    expect(defaultSpeedFor(360)).toBe(50); // an hour at one fix every 10 s: 72 s
    expect(defaultSpeedFor(10 ** 7)).toBe(1000); // beyond: the fastest listed speed
  });
});

describe('ReplayClock', () => {
  let scheduler: FrameScheduler;

  beforeEach(() => {
    vi.useFakeTimers();
    // Frames every 16 ms on the fake clock: no real waiting anywhere.
    scheduler = {
      now: () => Date.now(),
      requestFrame: (cb) => setTimeout(cb, 16) as unknown as number,
      cancelFrame: (h) => clearTimeout(h),
      setTimer: (cb, ms) => setTimeout(cb, ms),
      clearTimer: (h) => clearTimeout(h),
    };
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('advances the marker by animation frames while playing and stops at the end', () => {
    const clock = new ReplayClock(30, scheduler);
    const seen: (number | null)[] = [];
    clock.subscribe(() => seen.push(clock.getState().index));
    clock.play();
    expect(clock.getState().index).toBe(0);
    vi.advanceTimersByTime(1000);
    expect(clock.getState().index).toBe(1);
    clock.setSpeed(100);
    vi.advanceTimersByTime(1000);
    expect(clock.getState().index).toBe(11);
    vi.advanceTimersByTime(5000);
    expect(clock.getState()).toMatchObject({ status: 'paused', index: 29, ended: true });
    expect(vi.getTimerCount()).toBe(0); // no frames requested once paused
    expect(seen[0]).toBe(0);
    expect(seen.at(-1)).toBe(29);
  });

  it("starts a new track at its default speed, and keeps the user's speed once chosen", () => {
    const clock = new ReplayClock(0, scheduler);
    clock.load(1140);
    expect(clock.getState().speed).toBe(100);
    clock.load(100);
    expect(clock.getState().speed).toBe(DEFAULT_SPEED);
    clock.setSpeed(20);
    clock.load(1140);
    expect(clock.getState().speed).toBe(20);
  });

  it('pause stops the frames and keeps the marker; resume continues', () => {
    const clock = new ReplayClock(100, scheduler);
    clock.play();
    vi.advanceTimersByTime(3000);
    clock.pause();
    const at = clock.getState().index;
    vi.advanceTimersByTime(10_000);
    expect(clock.getState().index).toBe(at);
    expect(vi.getTimerCount()).toBe(0);
    clock.play();
    vi.advanceTimersByTime(2000);
    expect(clock.getState().index).toBe((at ?? 0) + 2);
  });

  it('restart shows no marker for 500 ms, then plays from the first point', () => {
    const clock = new ReplayClock(100, scheduler);
    clock.play();
    vi.advanceTimersByTime(4000);
    clock.restart();
    expect(clock.getState().index).toBeNull();
    vi.advanceTimersByTime(499);
    expect(clock.getState().index).toBeNull();
    vi.advanceTimersByTime(1);
    expect(clock.getState()).toMatchObject({ status: 'playing', index: 0 });
    clock.dispose();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('notifies only when the marker or the status changes', () => {
    const clock = new ReplayClock(100, scheduler);
    const listener = vi.fn();
    clock.subscribe(listener);
    clock.play();
    vi.advanceTimersByTime(1000); // ~62 frames, one point
    expect(listener.mock.calls.length).toBe(2);
  });
});
