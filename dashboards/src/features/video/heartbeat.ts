/**
 * The heartbeat of live streams and talks (console-spec §4, §9): while any window plays or a talk
 * runs, `PUT /api/video/heartbeat/{ids}.json` every 5 s with every stream id held, so the media
 * server keeps them (it stops a stream 15 s after its last viewer and heartbeat). One loop for the
 * whole console, however many windows hold streams.
 */
import { sendHeartbeat } from './api';
import { HEARTBEAT_MS } from './constants';

type Send = (ids: readonly string[]) => unknown;

export class StreamHeartbeat {
  private readonly holds = new Map<string, number>();
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly send: Send = sendHeartbeat, private readonly intervalMs = HEARTBEAT_MS) {}

  /** Keeps `streamId` alive until the returned release is called (holds are counted). */
  hold(streamId: string): () => void {
    this.holds.set(streamId, (this.holds.get(streamId) ?? 0) + 1);
    if (this.timer === null) this.timer = setInterval(() => this.beat(), this.intervalMs);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.holds.get(streamId) ?? 1) - 1;
      if (left > 0) this.holds.set(streamId, left);
      else this.holds.delete(streamId);
      if (this.holds.size === 0 && this.timer !== null) {
        clearInterval(this.timer);
        this.timer = null;
      }
    };
  }

  ids(): string[] {
    return Array.from(this.holds.keys()).sort();
  }

  beat(): void {
    const ids = this.ids();
    if (ids.length) void this.send(ids);
  }
}

export const streamHeartbeat = new StreamHeartbeat();
