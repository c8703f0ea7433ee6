/**
 * Stream liveness (console-spec §4): every 15 s each playing stream is checked; it is suspected
 * abnormal when its update time lags the current time by over 5000 ms or is missing. Pure.
 */
import { LIVENESS_LAG_MS } from './constants';
import type { StreamInfo } from './api';

/** True when the stream looks dead. `now` is the server's `currentTime` when it gave one. */
export function suspectedAbnormal(info: Pick<StreamInfo, 'updateTime' | 'currentTime'> | null, now: number): boolean {
  if (!info || info.updateTime === null || info.updateTime === undefined) return true;
  const reference = Number.isFinite(info.currentTime) ? info.currentTime : now;
  return reference - info.updateTime > LIVENESS_LAG_MS;
}

/** Whether signed stream URLs expiring at `expiresAt` must be refreshed before opening them now. */
export function urlsExpired(expiresAt: number | null | undefined, now: number, marginMs = 2000): boolean {
  return !expiresAt || expiresAt - marginMs <= now;
}
