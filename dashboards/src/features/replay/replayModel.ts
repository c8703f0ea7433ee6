/**
 * The track replay state machine (console-spec §4, §9), pure: every transition takes the current time
 * (ms, any monotonic clock) and returns a new state. States stopped / playing / paused:
 * - start places the marker at the first point and plays;
 * - pause keeps the marker where it is; resume continues from the elapsed time;
 * - the speed may change while playing (the points already covered are kept);
 * - reaching the last point pauses, the marker stays on it, and the index is reset: the next resume
 *   starts over from the first point;
 * - restart clears the marker and starts again 500 ms later (`tick` performs the start when due);
 * - seek moves the marker to a point (and continues from there when playing).
 * The marker's point is `baseIndex + round(speed × elapsed ms / 10000)` (the spec's step formula),
 * `elapsed` counted since the last play, resume, seek or speed change.
 */
export type ReplayStatus = 'stopped' | 'playing' | 'paused';

export const DEFAULT_SPEED = 10;
export const RESTART_DELAY_MS = 500;
export const SPEED_OPTIONS = [1, 5, 10, 20, 50, 100, 200, 500, 1000] as const;
/** How long a loaded track should take to play at its default speed: about a minute or two. */
export const TARGET_PLAY_MS = 120_000;

/**
 * The speed a track of `length` points starts at: the spec's default (×10) for a short one, else the
 * slowest listed speed that plays it within TARGET_PLAY_MS (a day's thinned track of ~1,100 points took
 * 19 minutes at ×10; ×100 plays it in under 2). The user's own choice of speed is kept (ReplayClock).
 */
export function defaultSpeedFor(length: number): number {
  const needed = (Math.max(0, length - 1) * 10000) / TARGET_PLAY_MS;
  return SPEED_OPTIONS.find((speed) => speed >= DEFAULT_SPEED && speed >= needed) ?? SPEED_OPTIONS[SPEED_OPTIONS.length - 1];
}

export interface ReplayState {
  status: ReplayStatus;
  /** Number of points on the timeline. */
  length: number;
  speed: number;
  /** The marker's point, or null when no marker is shown. */
  index: number | null;
  /** The point the current run of playing started from. */
  baseIndex: number;
  /** Time played since `baseIndex` (kept while paused, so resume continues from it). */
  elapsedMs: number;
  /** While playing: the time at which `elapsedMs` was 0. */
  anchorMs: number;
  /** Set by restart: when the replay starts again. */
  restartAtMs: number | null;
  /** The end was reached: the next resume starts from the first point. */
  ended: boolean;
}

/** Points advanced after `elapsedMs` at `speed` (console-spec §9). */
export function stepPoints(speed: number, elapsedMs: number): number {
  return Math.round((speed * elapsedMs) / 10000);
}

export function initialState(length: number, speed = DEFAULT_SPEED): ReplayState {
  return { status: 'stopped', length, speed, index: null, baseIndex: 0, elapsedMs: 0, anchorMs: 0, restartAtMs: null, ended: false };
}

const last = (state: ReplayState) => Math.max(0, state.length - 1);

/** Start from the first point (any state). */
export function start(state: ReplayState, now: number): ReplayState {
  if (state.length === 0) return initialState(0, state.speed);
  return { ...state, status: 'playing', index: 0, baseIndex: 0, elapsedMs: 0, anchorMs: now, restartAtMs: null, ended: false };
}

/** The state at `now`: moves the marker while playing, pauses at the end, performs a due restart. */
export function tick(state: ReplayState, now: number): ReplayState {
  if (state.restartAtMs !== null) return now >= state.restartAtMs ? start(state, now) : state;
  if (state.status !== 'playing') return state;
  const elapsedMs = now - state.anchorMs;
  const index = state.baseIndex + stepPoints(state.speed, elapsedMs);
  if (index >= last(state)) {
    return { ...state, status: 'paused', index: last(state), baseIndex: 0, elapsedMs: 0, ended: true };
  }
  return index === state.index && elapsedMs === state.elapsedMs ? state : { ...state, index, elapsedMs };
}

export function pause(state: ReplayState, now: number): ReplayState {
  if (state.status !== 'playing') return state;
  const moved = tick(state, now);
  return moved.status === 'playing' ? { ...moved, status: 'paused' } : moved;
}

/** Continue a paused replay from its elapsed time (from the first point after the end). */
export function resume(state: ReplayState, now: number): ReplayState {
  if (state.status !== 'paused') return state;
  if (state.ended) return start(state, now);
  return { ...state, status: 'playing', anchorMs: now - state.elapsedMs };
}

/** Play: start when stopped, resume when paused, nothing when playing. */
export function play(state: ReplayState, now: number): ReplayState {
  if (state.restartAtMs !== null) return state;
  if (state.status === 'stopped') return start(state, now);
  return resume(state, now);
}

/** Clears the marker; the replay starts again RESTART_DELAY_MS later (on the first tick then). */
export function restart(state: ReplayState, now: number): ReplayState {
  return { ...initialState(state.length, state.speed), restartAtMs: now + RESTART_DELAY_MS };
}

/** A new speed; while playing the points covered so far stay covered. */
export function setSpeed(state: ReplayState, speed: number, now: number): ReplayState {
  if (!(speed > 0) || speed === state.speed) return state;
  if (state.status === 'paused' && !state.ended) {
    // the points covered stay covered; the elapsed time restarts at the new speed
    return { ...state, speed, baseIndex: state.index ?? 0, elapsedMs: 0 };
  }
  if (state.status !== 'playing') return { ...state, speed };
  const moved = tick(state, now);
  if (moved.status !== 'playing') return { ...moved, speed };
  return { ...moved, speed, baseIndex: moved.index ?? 0, elapsedMs: 0, anchorMs: now };
}

/** Moves the marker to `index` (clamped); playing continues from there, otherwise it pauses there. */
export function seek(state: ReplayState, index: number, now: number): ReplayState {
  if (state.length === 0) return state;
  const at = Math.min(last(state), Math.max(0, Math.round(index)));
  const status = state.status === 'playing' ? 'playing' : 'paused';
  return { ...state, status, index: at, baseIndex: at, elapsedMs: 0, anchorMs: now, restartAtMs: null, ended: false };
}

/** Back to stopped without a marker (a new track was loaded). */
export function stop(state: ReplayState, length = state.length): ReplayState {
  return initialState(length, state.speed);
}
