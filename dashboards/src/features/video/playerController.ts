/**
 * Drives one <video> element with mpegts.js (FLV, live) by the player model (playerModel.ts): opens
 * the stream, watches decoded frames once a second (progress, the 10 s timeout, the catch-up rule),
 * restarts on errors, and reports its state. The URL comes from `source`, which refreshes signed URLs
 * that expired (the start answer's are valid 120 s to open) from the stream info route.
 */
import mpegts from 'mpegts.js';
import { CATCH_UP_CHECK_MS, PLAYER } from './constants';
import {
  catchUp,
  DEFAULT_PLAYER_OPTIONS,
  firstFrameSeek,
  initialPlayerState,
  playerTransition,
  type PlayerEffect,
  type PlayerEvent,
  type PlayerMessage,
  type PlayerOptions,
  type PlayerState,
  qualityOf,
  type StreamQuality,
} from './playerModel';

export interface PlayerListener {
  state?: (state: PlayerState) => void;
  message?: (message: PlayerMessage) => void;
  /** The first picture (or sound) of an attempt, ms after `start()`. */
  firstFrame?: (msSinceStart: number) => void;
  /** Once a second: the quality label from the pictures decoded in that second (video only). */
  quality?: (quality: StreamQuality) => void;
}

/** Whether this browser can play live FLV through Media Source Extensions (console-spec §5). */
export function liveStreamingSupported(): boolean {
  try {
    return mpegts.isSupported() && mpegts.getFeatureList().mseLivePlayback;
  } catch {
    return false;
  }
}

function bufferedEnd(video: HTMLVideoElement): number | null {
  const ranges = video.buffered;
  return ranges.length ? ranges.end(ranges.length - 1) : null;
}

function decodedFrames(video: HTMLVideoElement): number {
  const quality = typeof video.getVideoPlaybackQuality === 'function' ? video.getVideoPlaybackQuality() : null;
  const webkit = (video as unknown as { webkitDecodedFrameCount?: number }).webkitDecodedFrameCount;
  return quality?.totalVideoFrames ?? webkit ?? 0;
}

export class LivePlayerController {
  state: PlayerState = initialPlayerState;
  private player: mpegts.Player | null = null;
  private restartTimer: ReturnType<typeof setTimeout> | null = null;
  private tickTimer: ReturnType<typeof setInterval> | null = null;
  private lastFrames = 0;
  private lastTime = 0;
  private startedAt = 0;
  private firstFrameSeen = false;
  private attempt = 0;

  constructor(
    private readonly video: HTMLVideoElement,
    private readonly source: () => Promise<string | null>,
    private readonly listener: PlayerListener = {},
    private readonly options: PlayerOptions = DEFAULT_PLAYER_OPTIONS,
    private readonly audioOnly = false,
    /** Live: the catch-up rule and the first-frame jump apply; a playback plays at the user's rate. */
    private readonly live = true,
    /** Demux the stream's audio. A muted window leaves it out: see LivePlayer. */
    private readonly withAudio = true,
  ) {}

  start(): void {
    this.startedAt = Date.now();
    this.firstFrameSeen = false;
    this.dispatch({ type: 'start', at: Date.now() });
    if (this.tickTimer === null) this.tickTimer = setInterval(() => this.tick(), CATCH_UP_CHECK_MS);
  }

  stop(): void {
    this.dispatch({ type: 'stop' });
    this.clearTimers();
  }

  /** Pauses / resumes the element only (a playback's terminal is told by 9202 separately). */
  setPaused(paused: boolean): void {
    if (paused) this.video.pause();
    else void this.video.play().catch(() => undefined);
  }

  private clearTimers(): void {
    if (this.restartTimer !== null) clearTimeout(this.restartTimer);
    if (this.tickTimer !== null) clearInterval(this.tickTimer);
    this.restartTimer = null;
    this.tickTimer = null;
  }

  private dispatch(event: PlayerEvent): void {
    const { state, effects } = playerTransition(this.state, event, this.options);
    const changed = state !== this.state;
    this.state = state;
    for (const effect of effects) this.run(effect);
    if (changed) this.listener.state?.(state);
  }

  private run(effect: PlayerEffect): void {
    switch (effect.type) {
      case 'open':
        void this.open();
        break;
      case 'close':
        this.close();
        break;
      case 'scheduleRestart':
        if (this.restartTimer !== null) clearTimeout(this.restartTimer);
        this.restartTimer = setTimeout(() => {
          this.restartTimer = null;
          this.dispatch({ type: 'reopen', at: Date.now() });
        }, effect.delayMs);
        break;
      case 'notify':
        this.listener.message?.(effect.message);
        this.clearTimers();
        break;
    }
  }

  private async open(): Promise<void> {
    const attempt = ++this.attempt;
    const url = await this.source().catch(() => null);
    if (attempt !== this.attempt || (this.state.status !== 'starting' && this.state.status !== 'playing')) return;
    if (!url) {
      this.dispatch({ type: 'error', at: Date.now() });
      return;
    }
    this.lastFrames = decodedFrames(this.video);
    this.lastTime = this.video.currentTime;
    const player = mpegts.createPlayer(
      { type: 'flv', isLive: true, url, hasAudio: this.withAudio || this.audioOnly, hasVideo: !this.audioOnly },
      {
        enableWorker: false,
        enableStashBuffer: false,
        stashInitialSize: 128 * 1024,
        isLive: true,
        lazyLoad: false,
        lazyLoadMaxDuration: PLAYER.lazyLoadMaxSeconds,
        deferLoadAfterSourceOpen: false,
        autoCleanupSourceBuffer: true,
        autoCleanupMaxBackwardDuration: 30,
        autoCleanupMinBackwardDuration: 10,
        liveBufferLatencyChasing: false,
        fixAudioTimestampGap: false,
      },
    );
    this.player = player;
    player.on(mpegts.Events.ERROR, () => {
      if (this.player === player) this.dispatch({ type: 'error', at: Date.now() });
    });
    player.attachMediaElement(this.video);
    player.load();
    const played = player.play() as Promise<void> | undefined;
    if (played && typeof played.catch === 'function') {
      // Autoplay refused with sound (no gesture): play muted rather than not at all.
      played.catch(() => {
        if (this.player !== player) return;
        this.video.muted = true;
        void this.video.play().catch(() => undefined);
      });
    }
  }

  private close(): void {
    this.attempt += 1;
    const player = this.player;
    this.player = null;
    if (!player) return;
    try {
      player.pause();
      player.unload();
      player.detachMediaElement();
      player.destroy();
    } catch {
      // a player torn down mid-error: nothing left to release
    }
  }

  private tick(): void {
    if (!this.player) {
      this.dispatch({ type: 'tick', at: Date.now() });
      return;
    }
    const frames = decodedFrames(this.video);
    const time = this.video.currentTime;
    const advanced = this.audioOnly ? time > this.lastTime : frames > this.lastFrames;
    if (!this.audioOnly) this.listener.quality?.(qualityOf((frames - this.lastFrames) / (CATCH_UP_CHECK_MS / 1000)));
    this.lastFrames = frames;
    this.lastTime = time;
    const now = Date.now();
    if (advanced) {
      if (!this.firstFrameSeen) {
        this.firstFrameSeen = true;
        this.listener.firstFrame?.(now - this.startedAt);
        const to = this.live ? firstFrameSeek(bufferedEnd(this.video), time) : null;
        if (to !== null) this.video.currentTime = to;
      }
      this.dispatch({ type: 'frame', at: now });
    }
    if (this.live && !this.video.paused) {
      const rule = catchUp(bufferedEnd(this.video), this.video.currentTime);
      if (rule?.kind === 'seek') this.video.currentTime = rule.to;
      else if (rule && this.video.playbackRate !== rule.rate) this.video.playbackRate = rule.rate;
    }
    this.dispatch({ type: 'tick', at: now });
  }

  /** Called by the element's first painted frame (requestVideoFrameCallback) for a prompt report. */
  framePainted(): void {
    if (this.firstFrameSeen || !this.player) return;
    this.firstFrameSeen = true;
    const now = Date.now();
    this.listener.firstFrame?.(now - this.startedAt);
    const to = this.live ? firstFrameSeek(bufferedEnd(this.video), this.video.currentTime) : null;
    if (to !== null) this.video.currentTime = to;
    this.lastFrames = decodedFrames(this.video);
    this.dispatch({ type: 'frame', at: now });
  }
}
