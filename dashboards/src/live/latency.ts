/**
 * Send-to-screen delay samples (gateway receive time `sentAt` to the moment the batch was applied
 * to the markers), kept in a fixed ring so the benchmark can read p50/p99 from the page:
 * `window.__fleetwatchLive.latency()`.
 */
export class LatencyRecorder {
  private readonly samples: Float64Array;
  private count = 0;
  private next = 0;

  constructor(capacity = 20000) {
    this.samples = new Float64Array(capacity);
  }

  record(delayMs: number): void {
    if (!Number.isFinite(delayMs)) return;
    this.samples[this.next] = delayMs;
    this.next = (this.next + 1) % this.samples.length;
    this.count = Math.min(this.count + 1, this.samples.length);
  }

  summary(): { count: number; p50: number | null; p99: number | null; max: number | null } {
    if (this.count === 0) return { count: 0, p50: null, p99: null, max: null };
    const sorted = Array.from(this.samples.subarray(0, this.count)).sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    return { count: this.count, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] };
  }

  reset(): void {
    this.count = 0;
    this.next = 0;
  }
}
