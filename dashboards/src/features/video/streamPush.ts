/**
 * Push 14 (console-spec §7: video channel online / offline), from the one socket owner (live/LiveHub):
 * `{deviceId, carId, plateNumber, channelId, streamId, kind, state 1|0, time}`. The channel tree marks
 * the channels whose live stream a terminal feeds now.
 */
import { useEffect, useState } from 'react';
import type { LiveHub } from '../../live/LiveHub';
import type { PushMessage } from '../../live/types';
import { entryKey } from './windows';

export const PUSH_VIDEO_CHANNEL = 14;

export interface ChannelPush {
  key: string;
  kind: string;
  up: boolean;
}

export function channelPush(push: PushMessage): ChannelPush | null {
  if (push.type !== PUSH_VIDEO_CHANNEL || !push.data) return null;
  const { deviceId, channelId, kind, state } = push.data as Record<string, unknown>;
  if (typeof deviceId !== 'number' || typeof channelId !== 'number') return null;
  return { key: entryKey(deviceId, channelId), kind: typeof kind === 'string' ? kind : 'live', up: Number(state) === 1 };
}

/** `<deviceId>-<channel>` of the live streams up, by push 14 since the page opened. */
export function applyChannelPush(current: ReadonlySet<string>, push: ChannelPush): ReadonlySet<string> {
  if (push.kind !== 'live' || current.has(push.key) === push.up) return current;
  const next = new Set(current);
  if (push.up) next.add(push.key);
  else next.delete(push.key);
  return next;
}

export function useStreamingChannels(hub: Pick<LiveHub, 'onPush'> | null): ReadonlySet<string> {
  const [up, setUp] = useState<ReadonlySet<string>>(() => new Set());
  useEffect(() => (hub ? hub.onPush((message) => {
    const push = channelPush(message);
    if (push) setUp((current) => applyChannelPush(current, push));
  }) : undefined), [hub]);
  return up;
}
