/**
 * The live video grid's windows (console-spec §2, §4, §5), pure: which window a channel goes to,
 * the start rules' refusals, and the layout that fits. A window holds one entry or nothing.
 */
import { GRID_LAYOUTS, MAX_WINDOWS, type GridLayout, type StreamType } from './constants';

/** The video player entry of console-spec §3, as a window holds it. */
export interface VideoEntry {
  /** `<deviceId>-<channel>`: one device's channel plays in at most one window. */
  key: string;
  carId: number | null;
  deviceId: number;
  deviceSn: string;
  plateNumber: string;
  channelId: number;
  /** 0 audio and video, 1 video, 3 listen (audio). */
  dataType: number;
  streamType: StreamType;
}

export type Refusal = 'playing' | 'offline' | 'full';

export const entryKey = (deviceId: number, channelId: number) => `${deviceId}-${channelId}`;

export function playingCount(windows: readonly (VideoEntry | null)[]): number {
  return windows.filter(Boolean).length;
}

/** The smallest layout with room for `count` windows (16 at most). */
export function layoutFor(count: number): GridLayout {
  return GRID_LAYOUTS.find((n) => n >= count) ?? MAX_WINDOWS;
}

export type Allocation = { ok: true; windows: (VideoEntry | null)[]; index: number; layout: GridLayout } | { ok: false; refusal: Refusal };

/**
 * Puts `entry` in a window: refused when the same device and channel already plays, when the device
 * is offline, or when 16 windows already run (console-spec §5). The first free window of the
 * current layout (or `preferred` when free); with none free, the layout grows to the next that has one.
 */
export function allocate(
  windows: readonly (VideoEntry | null)[],
  layout: GridLayout,
  entry: VideoEntry,
  online: boolean,
  preferred?: number,
): Allocation {
  if (windows.some((w) => w?.key === entry.key)) return { ok: false, refusal: 'playing' };
  if (!online) return { ok: false, refusal: 'offline' };
  if (playingCount(windows) >= MAX_WINDOWS) return { ok: false, refusal: 'full' };
  const slots = Array.from({ length: MAX_WINDOWS }, (_, i) => windows[i] ?? null);
  let index = preferred !== undefined && preferred < layout && !slots[preferred] ? preferred : -1;
  if (index < 0) index = slots.findIndex((w, i) => i < layout && !w);
  let nextLayout = layout;
  if (index < 0) {
    index = slots.findIndex((w) => !w);
    nextLayout = layoutFor(index + 1);
  }
  slots[index] = entry;
  return { ok: true, windows: slots, index, layout: nextLayout };
}

/** The windows without the entries `drop` selects (e.g. every channel of a car being removed). */
export function clearWhere(windows: readonly (VideoEntry | null)[], drop: (entry: VideoEntry) => boolean): (VideoEntry | null)[] {
  return windows.map((w) => (w && drop(w) ? null : w));
}

/**
 * Runs start tasks one after another (console-spec §4: several channels start in turn), each after
 * its delay (100 ms for a start, 500 ms for a restart), waiting for the previous one to finish.
 */
export class StartQueue {
  private tail: Promise<void> = Promise.resolve();
  private generation = 0;

  constructor(private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms))) {}

  add(delayMs: number, task: () => Promise<unknown>): Promise<void> {
    const mine = this.generation;
    const run = this.tail.then(async () => {
      await this.sleep(delayMs);
      if (mine !== this.generation) return;
      await task();
    });
    this.tail = run.catch(() => undefined);
    return this.tail;
  }

  /** Drops the tasks not started yet. */
  clear(): void {
    this.generation += 1;
  }
}
