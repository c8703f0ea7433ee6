/**
 * Burst coalescing between the socket and everything that draws: incoming items are buffered, only
 * the newest per key is kept, and the buffer is flushed at most once per `minIntervalMs` (and on an
 * animation frame when the browser has one). 2,000 positions/s therefore reach the map as a few
 * batches per second with one entry per vehicle, never as 2,000 separate updates.
 *
 * With `costFactor` the wait after a flush is that flush's own duration times the factor, up to
 * `minIntervalMs`: a cheap flush (a few markers moved) lets the next batch go on the next frame, so a
 * quiet map shows a position at once (platform-spec, live map "position to marker"); an expensive one
 * (thousands of markers) keeps the full interval, so flushing never takes more than 1 / factor of the time.
 */

export type Scheduler = (run: () => void, delayMs: number) => () => void;

export interface CoalescerOptions<T> {
  keyOf: (item: T) => number | string;
  /** True when `candidate` should replace `current` (e.g. a later fix time). */
  isNewer: (candidate: T, current: T) => boolean;
  flush: (batch: T[]) => void;
  minIntervalMs?: number;
  /** The wait after a flush is its duration times this, at most `minIntervalMs` (unset: always `minIntervalMs`). */
  costFactor?: number;
  schedule?: Scheduler;
  now?: () => number;
  /** Clock of a flush's duration (ms; default `performance.now`). */
  costClock?: () => number;
}

export interface Coalescer<T> {
  add(items: readonly T[]): void;
  /** Flushes what is buffered now (no-op when empty). */
  flushNow(): void;
  pending(): number;
  dispose(): void;
}

/** setTimeout, then the next animation frame when the page is visible (rAF never fires when hidden). */
export const frameScheduler: Scheduler = (run, delayMs) => {
  let frame = 0;
  const timer = setTimeout(() => {
    const visible = typeof document === 'undefined' || document.visibilityState !== 'hidden';
    if (visible && typeof requestAnimationFrame === 'function') {
      frame = requestAnimationFrame(() => run());
    } else {
      run();
    }
  }, delayMs);
  return () => {
    clearTimeout(timer);
    if (frame && typeof cancelAnimationFrame === 'function') cancelAnimationFrame(frame);
  };
};

export function createCoalescer<T>(options: CoalescerOptions<T>): Coalescer<T> {
  const { keyOf, isNewer, flush } = options;
  const minIntervalMs = options.minIntervalMs ?? 100;
  const schedule = options.schedule ?? frameScheduler;
  const now = options.now ?? (() => Date.now());
  const { costFactor } = options;
  const costClock = options.costClock ?? (typeof performance !== 'undefined' ? () => performance.now() : now);
  let intervalMs = minIntervalMs;
  let buffer = new Map<number | string, T>();
  let cancel: (() => void) | null = null;
  let lastFlushAt = -Infinity;
  let disposed = false;

  function flushNow(): void {
    if (cancel) {
      cancel();
      cancel = null;
    }
    if (buffer.size === 0) return;
    const batch = Array.from(buffer.values());
    buffer = new Map();
    lastFlushAt = now();
    if (costFactor === undefined) {
      flush(batch);
      return;
    }
    const started = costClock();
    flush(batch);
    intervalMs = Math.min(minIntervalMs, costFactor * (costClock() - started));
  }

  function ensureScheduled(): void {
    if (cancel || disposed) return;
    const delay = Math.max(0, lastFlushAt + intervalMs - now());
    cancel = schedule(() => {
      cancel = null;
      flushNow();
    }, delay);
  }

  return {
    add(items) {
      if (disposed) return;
      for (const item of items) {
        const key = keyOf(item);
        const current = buffer.get(key);
        if (current === undefined || isNewer(item, current)) buffer.set(key, item);
      }
      if (buffer.size > 0) ensureScheduled();
    },
    flushNow,
    pending: () => buffer.size,
    dispose() {
      disposed = true;
      if (cancel) cancel();
      cancel = null;
      buffer.clear();
    },
  };
}
