import { describe, expect, it } from 'vitest';
import { formatBytes, recordingsOf, speedControl } from '../playbackModel';

describe('playback', () => {
  it('reads the terminal`s 0x1205 recordings from the 9205 reply, oldest first', () => {
    const reply = {
      reply_seq: 3,
      items: [
        { channel: 2, start: '2026-11-28T01:10:00+00:00', end: '2026-11-28T01:20:00+00:00', alarm_flags: 0, media_type: 0, stream_type: 1, storage: 1, size_bytes: 1048576 },
        { channel: 1, start: '2026-11-28T01:00:00+00:00', end: '2026-11-28T01:10:00+00:00', alarm_flags: 4, media_type: 2, stream_type: 2, storage: 1, size_bytes: 10 },
        { channel: 1, start: null, end: '2026-11-28T01:10:00+00:00' },
      ],
    };
    expect(recordingsOf(reply)).toEqual([
      { channelId: 1, startTime: '2026-11-28T01:00:00+00:00', endTime: '2026-11-28T01:10:00+00:00', alarmFlags: 4, mediaType: 2, streamType: 2, storageType: 1, fileSize: 10 },
      { channelId: 2, startTime: '2026-11-28T01:10:00+00:00', endTime: '2026-11-28T01:20:00+00:00', alarmFlags: 0, mediaType: 0, streamType: 1, storageType: 1, fileSize: 1048576 },
    ]);
    expect(recordingsOf(null)).toEqual([]);
    expect(recordingsOf({ items: 'x' })).toEqual([]);
  });

  it('asks the terminal to fast-forward above 1x and to play normally otherwise', () => {
    expect(speedControl(2)).toEqual({ control: 3, speed: 2 });
    expect(speedControl(1.5)).toEqual({ control: 3, speed: 2 });
    expect(speedControl(1)).toEqual({ control: 0, speed: 1 });
    expect(speedControl(0.7)).toEqual({ control: 0, speed: 1 });
  });

  it('formats file sizes', () => {
    expect(formatBytes(0)).toBe('-');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1048576)).toBe('1.0 MB');
  });
});
