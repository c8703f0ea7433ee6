/** Reconnect delays: exponential from `baseMs`, capped at `maxMs`, with up to `jitter` of random spread. */
export interface BackoffOptions {
  baseMs?: number;
  maxMs?: number;
  jitter?: number;
  random?: () => number;
}

export function backoffDelay(attempt: number, options: BackoffOptions = {}): number {
  const base = options.baseMs ?? 1000;
  const max = options.maxMs ?? 30000;
  const jitter = options.jitter ?? 0.2;
  const random = options.random ?? Math.random;
  const raw = Math.min(max, base * 2 ** Math.max(0, attempt));
  return Math.round(raw * (1 - jitter + 2 * jitter * random()));
}
