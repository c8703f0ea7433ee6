/**
 * The replay's clock: holds a ReplayState, advances it once per animation frame while playing (and
 * fires a pending restart after its 500 ms), and tells subscribers only when the marker's point or the
 * status changed, so React renders a few times per second, not per frame. One clock drives every
 * vehicle of the replay (their markers follow the shared timeline index).
 */
import * as model from './replayModel';
import type { ReplayState } from './replayModel';

export interface FrameScheduler {
  now(): number;
  requestFrame(callback: () => void): number;
  cancelFrame(handle: number): void;
  setTimer(callback: () => void, ms: number): ReturnType<typeof setTimeout>;
  clearTimer(handle: ReturnType<typeof setTimeout>): void;
}

export const browserScheduler: FrameScheduler = {
  now: () => performance.now(),
  requestFrame: (callback) => requestAnimationFrame(() => callback()),
  cancelFrame: (handle) => cancelAnimationFrame(handle),
  setTimer: (callback, ms) => setTimeout(callback, ms),
  clearTimer: (handle) => clearTimeout(handle),
};

type Listener = () => void;

export class ReplayClock {
  private state: ReplayState;
  private frame: number | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly listeners = new Set<Listener>();
  /** The user picked a speed: new tracks keep it instead of their default speed. */
  private speedChosen = false;

  constructor(length = 0, private readonly scheduler: FrameScheduler = browserScheduler) {
    this.state = model.initialState(length);
  }

  getState = (): ReplayState => this.state;

  subscribe = (listener: Listener): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  /** A new timeline: stopped, no marker; the user's speed kept, else the track's default speed. */
  load(length: number): void {
    const stopped = model.stop(this.state, length);
    this.apply(this.speedChosen ? stopped : { ...stopped, speed: model.defaultSpeedFor(length) });
  }

  play(): void {
    this.apply(model.play(this.state, this.scheduler.now()));
  }

  pause(): void {
    this.apply(model.pause(this.state, this.scheduler.now()));
  }

  restart(): void {
    this.apply(model.restart(this.state, this.scheduler.now()));
  }

  setSpeed(speed: number): void {
    this.speedChosen = true;
    this.apply(model.setSpeed(this.state, speed, this.scheduler.now()));
  }

  seek(index: number): void {
    this.apply(model.seek(this.state, index, this.scheduler.now()));
  }

  dispose(): void {
    this.cancel();
    this.listeners.clear();
  }

  private apply(next: ReplayState): void {
    const previous = this.state;
    this.state = next;
    this.schedule();
    if (previous.index !== next.index || previous.status !== next.status || previous.speed !== next.speed
      || previous.length !== next.length || previous.restartAtMs !== next.restartAtMs) {
      for (const listener of [...this.listeners]) listener();
    }
  }

  private readonly onFrame = () => {
    this.frame = null;
    this.apply(model.tick(this.state, this.scheduler.now()));
  };

  private readonly onRestartTimer = () => {
    this.timer = null;
    this.apply(model.tick(this.state, this.scheduler.now()));
  };

  private cancel(): void {
    if (this.frame !== null) this.scheduler.cancelFrame(this.frame);
    if (this.timer !== null) this.scheduler.clearTimer(this.timer);
    this.frame = null;
    this.timer = null;
  }

  private schedule(): void {
    const { status, restartAtMs } = this.state;
    if (restartAtMs !== null) {
      if (this.frame !== null) this.scheduler.cancelFrame(this.frame);
      this.frame = null;
      if (this.timer === null) {
        this.timer = this.scheduler.setTimer(this.onRestartTimer, Math.max(0, restartAtMs - this.scheduler.now()));
      }
      return;
    }
    if (this.timer !== null) {
      this.scheduler.clearTimer(this.timer);
      this.timer = null;
    }
    if (status === 'playing') {
      if (this.frame === null) this.frame = this.scheduler.requestFrame(this.onFrame);
    } else if (this.frame !== null) {
      this.scheduler.cancelFrame(this.frame);
      this.frame = null;
    }
  }
}
