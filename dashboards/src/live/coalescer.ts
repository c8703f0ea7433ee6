/**
 * Burst coalescing between the socket and everything that draws: incoming items are buffered, only
 * the newest per key is kept, and the buffer is flushed at most once per `minIntervalMs` (and on an
 * animation frame when the browser has one). 2,000 positions/s therefore reach the map as a few
 * batches per second with one entry per vehicle, never as 2,000 separate updates.
 */

export type Scheduler = (run: () => void, delayMs: number) => () => void;

export interface CoalescerOptions<T> {
  keyOf: (item: T) => number | string;
  /** True when `candidate` should replace `current` (e.g. a later fix time). */
  isNewer: (candidate: T, current: T) => boolean;
  flush: (batch: T[]) => void;
  minIntervalMs?: number;
  schedule?: Scheduler;
  now?: () => number;
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
    flush(batch);
  }

  function ensureScheduled(): void {
    if (cancel || disposed) return;
    const delay = Math.max(0, lastFlushAt + minIntervalMs - now());
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
