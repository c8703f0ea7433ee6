/**
 * Playback (platform-spec §2 "playback"), pure parts: the terminal's 0x1205 recordings
 * from the 9205 command's reply (state.json `reply`: `{items: [{channel, start, end, alarm_flags,
 * media_type, stream_type, storage, size_bytes}]}`), and the 9202 payload of a speed change.
 */
import type { Recording } from './api';

interface RawItem {
  channel?: unknown;
  start?: unknown;
  end?: unknown;
  alarm_flags?: unknown;
  media_type?: unknown;
  stream_type?: unknown;
  storage?: unknown;
  size_bytes?: unknown;
}

const num = (value: unknown, fallback = 0) => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);

export function recordingsOf(reply: unknown): Recording[] {
  const items = (reply as { items?: unknown } | null)?.items;
  if (!Array.isArray(items)) return [];
  return (items as RawItem[])
    .filter((item) => typeof item.start === 'string' && typeof item.end === 'string')
    .map((item) => ({
      channelId: num(item.channel, 1),
      startTime: item.start as string,
      endTime: item.end as string,
      alarmFlags: num(item.alarm_flags),
      mediaType: num(item.media_type),
      streamType: num(item.stream_type),
      storageType: num(item.storage),
      fileSize: num(item.size_bytes),
    }))
    .sort((a, b) => a.startTime.localeCompare(b.startTime) || a.channelId - b.channelId);
}

/**
 * The 9202 of a rate the player offers (0.7, 1, 1.5, 2; console-spec §9): faster than 1 asks the
 * terminal to fast-forward (control 3) at 2x (speed code 2), otherwise normal play (control 0, 1x).
 * The element plays the rate itself; the terminal only keeps up.
 */
export function speedControl(rate: number): { control: number; speed: number } {
  return rate > 1 ? { control: 3, speed: 2 } : { control: 0, speed: 1 };
}

export function formatBytes(bytes: number | undefined): string {
  if (!bytes) return '-';
  const units = ['B', 'KB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}
