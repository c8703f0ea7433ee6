import { describe, expect, it } from 'vitest';
import {
  catchUp,
  DEFAULT_PLAYER_OPTIONS,
  firstFrameSeek,
  initialPlayerState,
  playerTransition,
  qualityOf,
  STABLE_MS,
  type PlayerEvent,
  type PlayerState,
} from '../playerModel';

function run(events: PlayerEvent[], options = DEFAULT_PLAYER_OPTIONS, state: PlayerState = initialPlayerState) {
  const effects = [];
  for (const event of events) {
    const next = playerTransition(state, event, options);
    state = next.state;
    effects.push(...next.effects);
  }
  return { state, effects };
}

describe('live player state machine', () => {
  it('goes start -> playing on the first decoded frame -> stopped', () => {
    const started = run([{ type: 'start', at: 0 }]);
    expect(started.state.status).toBe('starting');
    expect(started.effects).toEqual([{ type: 'open' }]);
    const playing = run([{ type: 'frame', at: 300 }], DEFAULT_PLAYER_OPTIONS, started.state);
    expect(playing.state.status).toBe('playing');
    const stopped = run([{ type: 'stop' }], DEFAULT_PLAYER_OPTIONS, playing.state);
    expect(stopped.state.status).toBe('stopped');
    expect(stopped.effects).toEqual([{ type: 'close' }]);
  });

  it('restarts after 100 ms on an error when restart-on-error is set', () => {
    const { state, effects } = run([{ type: 'start', at: 0 }, { type: 'frame', at: 100 }, { type: 'error', at: 5000 }]);
    expect(state.status).toBe('starting');
    expect(state.retries).toBe(1);
    expect(effects).toContainEqual({ type: 'scheduleRestart', delayMs: 100 });
    expect(run([{ type: 'reopen', at: 5100 }], DEFAULT_PLAYER_OPTIONS, state).effects).toEqual([{ type: 'open' }]);
  });

  it('counts errors within the 3 s throttle as one', () => {
    const { state } = run([{ type: 'start', at: 0 }, { type: 'error', at: 1000 }, { type: 'error', at: 2000 }, { type: 'error', at: 3999 }]);
    expect(state.retries).toBe(1);
    expect(run([{ type: 'error', at: 4000 }], DEFAULT_PLAYER_OPTIONS, state).state.retries).toBe(2);
  });

  it('gives up with the unstable-network message after more than 15 restarts', () => {
    const events: PlayerEvent[] = [{ type: 'start', at: 0 }];
    for (let i = 1; i <= 15; i += 1) events.push({ type: 'error', at: i * 4000 }, { type: 'reopen', at: i * 4000 + 100 });
    const fifteen = run(events);
    expect(fifteen.state.status).toBe('starting');
    expect(fifteen.state.retries).toBe(15);
    const sixteenth = run([{ type: 'error', at: 16 * 4000 }], DEFAULT_PLAYER_OPTIONS, fifteen.state);
    expect(sixteenth.state.status).toBe('failed');
    expect(sixteenth.state.message).toBe('unstableNetwork');
    expect(sixteenth.effects).toEqual([{ type: 'close' }, { type: 'notify', message: 'unstableNetwork' }]);
  });

  it('notifies the live error and stops when restart is not set', () => {
    const options = { ...DEFAULT_PLAYER_OPTIONS, restartOnError: false };
    const { state, effects } = run([{ type: 'start', at: 0 }, { type: 'error', at: 10 }], options);
    expect(state.status).toBe('stopped');
    expect(effects).toContainEqual({ type: 'notify', message: 'liveError' });
    expect(effects).not.toContainEqual(expect.objectContaining({ type: 'scheduleRestart' }));
  });

  it('treats 10 s without a new frame as an error (the timeout), before and after the first frame', () => {
    const waiting = run([{ type: 'start', at: 0 }, { type: 'tick', at: 9999 }]);
    expect(waiting.state.retries).toBe(0);
    expect(run([{ type: 'tick', at: 10_000 }], DEFAULT_PLAYER_OPTIONS, waiting.state).state.retries).toBe(1);
    const stalled = run([{ type: 'start', at: 0 }, { type: 'frame', at: 500 }, { type: 'frame', at: 1000 }, { type: 'tick', at: 10_999 }]);
    expect(stalled.state.status).toBe('playing');
    expect(run([{ type: 'tick', at: 11_000 }], DEFAULT_PLAYER_OPTIONS, stalled.state).effects).toContainEqual({ type: 'scheduleRestart', delayMs: 100 });
  });

  it('counts retries afresh after a minute of playing without error', () => {
    const { state } = run([
      { type: 'start', at: 0 }, { type: 'error', at: 1000 }, { type: 'error', at: 5000 },
      { type: 'reopen', at: 5100 }, { type: 'frame', at: 5200 }, { type: 'error', at: 5200 + STABLE_MS },
    ]);
    expect(state.retries).toBe(1);
  });

  it('ignores errors and frames after a stop', () => {
    const { state, effects } = run([{ type: 'start', at: 0 }, { type: 'stop' }, { type: 'error', at: 9000 }, { type: 'frame', at: 9100 }]);
    expect(state.status).toBe('stopped');
    expect(effects).toEqual([{ type: 'open' }, { type: 'close' }]);
  });
});

describe('catch-up rule', () => {
  it('plays at 1 below a 5.5 s lead and at 1.2 from 5.5 s', () => {
    expect(catchUp(12, 10)).toEqual({ kind: 'rate', rate: 1 });
    expect(catchUp(15.49, 10)).toEqual({ kind: 'rate', rate: 1 });
    expect(catchUp(15.5, 10)).toEqual({ kind: 'rate', rate: 1.2 });
    expect(catchUp(20, 10)).toEqual({ kind: 'rate', rate: 1.2 });
  });

  it('seeks to the live edge (less the 0.2 s buffer) past a 10 s lead or when the lead is negative', () => {
    const far = catchUp(20.01, 10);
    expect(far?.kind).toBe('seek');
    expect(far && far.kind === 'seek' ? far.to : 0).toBeCloseTo(19.81);
    const behind = catchUp(9, 10);
    expect(behind && behind.kind === 'seek' ? behind.to : 0).toBeCloseTo(8.8);
  });

  it('does nothing before anything is buffered', () => {
    expect(catchUp(null, 0)).toBeNull();
  });

  it('jumps to the live edge on the first frame when the cached pictures put it behind', () => {
    expect(firstFrameSeek(1.0, 0)).toBeCloseTo(0.8);
    expect(firstFrameSeek(0.3, 0)).toBeNull();
    expect(firstFrameSeek(null, 0)).toBeNull();
  });
});

describe('stream quality label', () => {
  it('says stuttering below 10 pictures a second, smooth below 20, very smooth from 20', () => {
    expect([0, 9.9, 10, 19.9, 20, 25].map(qualityOf)).toEqual([0, 0, 1, 1, 2, 2]);
  });
});
