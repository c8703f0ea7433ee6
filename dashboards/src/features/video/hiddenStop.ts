/**
 * The SIM card's data plan (terminals pay per MB): what plays on a page that is not on screen (another
 * tab of the console, a hidden browser tab) is stopped once it stayed hidden for the grace, the same
 * grace after which the media server stops a stream nobody watches (`stopGraceS` of the start answer,
 * FLEET_MEDIA_SERVER_IDLE_STOP_S). Coming back within the grace changes nothing. Pure: timers come in.
 */

/** The media server's default grace, when no start answer said it. */
export const DEFAULT_STOP_GRACE_MS = 15_000;

type SetTimer = (run: () => void, ms: number) => unknown;
type ClearTimer = (handle: unknown) => void;

/** The grace of what plays: the longest `stopGraceS` its streams were given (ms), or the default. */
export function stopGraceMs(streams: readonly ({ stopGraceS?: number | null } | null | undefined)[]): number {
  const graces = streams.map((s) => s?.stopGraceS).filter((g): g is number => typeof g === 'number' && g > 0);
  return graces.length ? Math.max(...graces) * 1000 : DEFAULT_STOP_GRACE_MS;
}

export class HiddenStop {
  private timer: unknown = null;

  constructor(
    private readonly onExpire: () => void,
    private readonly setTimer: SetTimer = (run, ms) => setTimeout(run, ms),
    private readonly clearTimer: ClearTimer = (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  ) {}

  /** `shown`: the page is on screen; `running`: something plays. Hidden while running starts the grace. */
  update(shown: boolean, running: boolean, graceMs: number): void {
    if (shown || !running) {
      this.cancel();
      return;
    }
    if (this.timer !== null) return;
    this.timer = this.setTimer(() => {
      this.timer = null;
      this.onExpire();
    }, graceMs);
  }

  cancel(): void {
    if (this.timer !== null) this.clearTimer(this.timer);
    this.timer = null;
  }
}
