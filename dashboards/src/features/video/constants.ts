/**
 * Live video, listening and talk constants (console-spec §4, §5, §9; platform-spec §9), in one home.
 * Times are milliseconds unless the name says otherwise.
 */

/** Window layouts of the live video grid and the most windows playing at once. */
export const GRID_LAYOUTS = [1, 4, 6, 8, 9, 10, 16] as const;
export type GridLayout = (typeof GRID_LAYOUTS)[number];
export const MAX_WINDOWS = 16;
/** The monitoring view's grid (left 60 %, the trace map right 40 %). */
export const MONITOR_VIEW_WINDOWS = 4;
export const MONITOR_VIDEO_SHARE = 0.6;
/** Content height: the window's minus 200 px, minus a further 210 px when the reset flag is set. */
export const CONTENT_HEIGHT_OFFSET_PX = 200;
export const CONTENT_HEIGHT_RESET_OFFSET_PX = 210;

/** Live video window: a start waits 100 ms, a restart 500 ms; several channels start in turn. */
export const START_DELAY_MS = 100;
export const RESTART_DELAY_MS = 500;

/** JT/T 1078 data types of 0x9101 (console-spec §3 video player entry). */
export const DATA_TYPE = { av: 0, video: 1, talk: 2, listen: 3 } as const;
export type DataType = (typeof DATA_TYPE)[keyof typeof DATA_TYPE];
/** Stream types: 0 main (clear), 1 sub (smooth, the default). */
export const STREAM_TYPE = { main: 0, sub: 1 } as const;
export type StreamType = (typeof STREAM_TYPE)[keyof typeof STREAM_TYPE];
export const DEFAULT_STREAM_TYPE: StreamType = STREAM_TYPE.sub;
/** Platform-spec §9: default video channel 2. */
export const DEFAULT_CHANNEL = 2;
/** Stream quality labels (console-spec §9). */
export const QUALITY_LABELS = { 0: 'stuttering', 1: 'smooth', 2: 'verySmooth' } as const;

/** Live player settings (console-spec §9). */
export const PLAYER = {
  /** The video buffer the player keeps (mpegts.js stash and live latency target). */
  bufferSeconds: 0.2,
  /** No data for this long is an error (mpegts.js / loading timeout). */
  timeoutMs: 10_000,
  /** Lazy load: at most this long of data is fetched ahead. */
  lazyLoadMaxSeconds: 10,
  /** Errors within this of the previous one are one error. */
  errorThrottleMs: 3000,
  /** Buffered lead at or above which the player plays at `catchUpRate`. */
  catchUpLeadSeconds: 5.5,
  catchUpRate: 1.2,
  /** Buffered lead above which (or below zero) the player seeks to the live edge. */
  seekLeadSeconds: 10,
  restartDelayMs: 100,
  maxRetries: 15,
  /** Playback rates the recordings player offers. */
  playbackRates: [0.7, 1, 1.5, 2] as const,
  aspect: 16 / 9,
} as const;

/** How often the catch-up rule looks at the buffered lead. */
export const CATCH_UP_CHECK_MS = 1000;

/** Heartbeat of playing streams and of a talk: every 5 s. */
export const HEARTBEAT_MS = 5000;
/** Stream liveness: every 15 s each playing stream is checked; suspect when it lags over 5 s. */
export const LIVENESS_CHECK_MS = 15_000;
export const LIVENESS_LAG_MS = 5000;

/** Talk session: the socket connects 5 s after the start command; the stream check gives up after 15. */
export const TALK_SOCKET_DELAY_MS = 5000;
export const TALK_STREAM_CHECK_ATTEMPTS = 15;
export const TALK_STREAM_CHECK_MS = 1000;

/** The talk socket's audio (console-spec §7): 8 kHz, 16-bit, mono, 320 samples a frame. */
export const TALK_SAMPLE_RATE_HZ = 8000;
export const TALK_FRAME_SAMPLES = 320;
