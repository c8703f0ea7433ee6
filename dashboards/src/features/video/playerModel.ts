/**
 * The live player's behaviour (console-spec §4 "live player", §8, §9), as pure functions the player
 * component drives and vitest checks: no media API, no timers; time comes in as numbers.
 *
 * States: idle -> starting (the stream is being opened) -> playing (a frame was decoded) -> stopped;
 * an error restarts after `restartDelayMs` when restart-on-error is set, and after more than
 * `maxRetries` restarts the player gives up with the unstable-network message; without restart it
 * notifies the live error and stops. Errors within `errorThrottleMs` of the previous one are one
 * error. A player that played without error for `STABLE_MS` starts counting its retries afresh, so a
 * stream watched for hours is not given up for errors spread over that time.
 */
import { PLAYER } from './constants';

export type PlayerStatus = 'idle' | 'starting' | 'playing' | 'stopped' | 'failed';
export type PlayerMessage = 'liveError' | 'unstableNetwork';

export interface PlayerState {
  status: PlayerStatus;
  /** Restarts since the last user start (or the last stable stretch). */
  retries: number;
  /** When the current attempt began (open) and when its data last advanced, epoch ms. */
  openedAt: number | null;
  progressAt: number | null;
  playingSince: number | null;
  lastErrorAt: number | null;
  message: PlayerMessage | null;
}

export interface PlayerOptions {
  restartOnError: boolean;
  maxRetries: number;
  errorThrottleMs: number;
  restartDelayMs: number;
  timeoutMs: number;
}

export const DEFAULT_PLAYER_OPTIONS: PlayerOptions = {
  restartOnError: true,
  maxRetries: PLAYER.maxRetries,
  errorThrottleMs: PLAYER.errorThrottleMs,
  restartDelayMs: PLAYER.restartDelayMs,
  timeoutMs: PLAYER.timeoutMs,
};

/** Played this long without an error: the retry count starts again. */
export const STABLE_MS = 60_000;

export type PlayerEvent =
  | { type: 'start'; at: number }
  | { type: 'reopen'; at: number }
  | { type: 'frame'; at: number }
  | { type: 'error'; at: number }
  | { type: 'tick'; at: number }
  | { type: 'stop' };

export type PlayerEffect =
  | { type: 'open' }
  | { type: 'close' }
  | { type: 'scheduleRestart'; delayMs: number }
  | { type: 'notify'; message: PlayerMessage };

export interface Transition {
  state: PlayerState;
  effects: PlayerEffect[];
}

export const initialPlayerState: PlayerState = {
  status: 'idle',
  retries: 0,
  openedAt: null,
  progressAt: null,
  playingSince: null,
  lastErrorAt: null,
  message: null,
};

const active = (s: PlayerState) => s.status === 'starting' || s.status === 'playing';

function onError(state: PlayerState, at: number, options: PlayerOptions): Transition {
  if (!active(state)) return { state, effects: [] };
  if (state.lastErrorAt !== null && at - state.lastErrorAt < options.errorThrottleMs) return { state, effects: [] };
  const stable = state.playingSince !== null && at - state.playingSince >= STABLE_MS;
  const retries = (stable ? 0 : state.retries) + 1;
  const base = { ...state, lastErrorAt: at, playingSince: null, progressAt: null, openedAt: null };
  if (!options.restartOnError) {
    return { state: { ...base, status: 'stopped', message: 'liveError' }, effects: [{ type: 'close' }, { type: 'notify', message: 'liveError' }] };
  }
  if (retries > options.maxRetries) {
    return {
      state: { ...base, status: 'failed', retries, message: 'unstableNetwork' },
      effects: [{ type: 'close' }, { type: 'notify', message: 'unstableNetwork' }],
    };
  }
  return {
    state: { ...base, status: 'starting', retries },
    effects: [{ type: 'close' }, { type: 'scheduleRestart', delayMs: options.restartDelayMs }],
  };
}

/** The next state and what the player must do, for one event. */
export function playerTransition(state: PlayerState, event: PlayerEvent, options: PlayerOptions = DEFAULT_PLAYER_OPTIONS): Transition {
  switch (event.type) {
    case 'start':
      return {
        state: { ...initialPlayerState, status: 'starting', openedAt: event.at, progressAt: event.at },
        effects: [{ type: 'open' }],
      };
    case 'reopen':
      if (state.status !== 'starting') return { state, effects: [] };
      return { state: { ...state, openedAt: event.at, progressAt: event.at }, effects: [{ type: 'open' }] };
    case 'frame':
      if (!active(state)) return { state, effects: [] };
      return {
        state: { ...state, status: 'playing', progressAt: event.at, playingSince: state.playingSince ?? event.at, message: null },
        effects: [],
      };
    case 'error':
      return onError(state, event.at, options);
    case 'tick': {
      // The timeout: an attempt that shows no (new) frame for `timeoutMs` is an error.
      if (!active(state) || state.progressAt === null) return { state, effects: [] };
      if (event.at - state.progressAt < options.timeoutMs) return { state, effects: [] };
      return onError(state, event.at, options);
    }
    case 'stop':
      if (state.status === 'idle' || state.status === 'stopped') return { state: { ...state, status: 'stopped' }, effects: [] };
      return { state: { ...state, status: 'stopped', openedAt: null, progressAt: null, playingSince: null }, effects: [{ type: 'close' }] };
  }
}

export type CatchUp = { kind: 'seek'; to: number } | { kind: 'rate'; rate: number };

/**
 * The catch-up rule (console-spec §9), from the buffered end and the playing position (seconds):
 * a lead over 10 s or below zero seeks to the live edge (less the 0.2 s buffer); a lead of 5.5 s or
 * more plays at 1.2; anything else at 1. Null when nothing is buffered yet.
 */
export function catchUp(bufferedEnd: number | null, currentTime: number): CatchUp | null {
  if (bufferedEnd === null) return null;
  const lead = bufferedEnd - currentTime;
  if (lead > PLAYER.seekLeadSeconds || lead < 0) return { kind: 'seek', to: liveEdge(bufferedEnd) };
  return { kind: 'rate', rate: lead >= PLAYER.catchUpLeadSeconds ? PLAYER.catchUpRate : 1 };
}

/** Where the live edge is for the player: the buffered end less the 0.2 s video buffer. */
export function liveEdge(bufferedEnd: number): number {
  return Math.max(0, bufferedEnd - PLAYER.bufferSeconds);
}

/**
 * On the first frame the player jumps to the live edge when the server's cached group of pictures
 * put it more than a frame or two behind (the 0.2 s buffer is the lead it keeps): null to stay.
 */
export function firstFrameSeek(bufferedEnd: number | null, currentTime: number): number | null {
  if (bufferedEnd === null) return null;
  return bufferedEnd - currentTime > PLAYER.bufferSeconds * 2 ? liveEdge(bufferedEnd) : null;
}

export type StreamQuality = 0 | 1 | 2;

/**
 * The stream quality label of a window (console-spec §9: 0 stuttering, 1 smooth, 2 very smooth) from
 * the pictures it decoded in the last second: at least 20 very smooth, at least 10 smooth.
 */
export function qualityOf(framesPerSecond: number): StreamQuality {
  if (framesPerSecond >= 20) return 2;
  return framesPerSecond >= 10 ? 1 : 0;
}
