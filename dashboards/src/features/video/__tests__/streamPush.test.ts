import { describe, expect, it } from 'vitest';
import { applyChannelPush, channelPush } from '../streamPush';

describe('push 14 (video channel online / offline)', () => {
  it('reads the channel and whether its stream is up', () => {
    expect(channelPush({ type: 14, data: { deviceId: 11, carId: 5, channelId: 2, streamId: '11-2-live', kind: 'live', state: 1, time: 1 } }))
      .toEqual({ key: '11-2', kind: 'live', up: true });
    expect(channelPush({ type: 11, data: { deviceId: 11, channelId: 2 } })).toBeNull();
    expect(channelPush({ type: 14, data: { deviceId: '11' } })).toBeNull();
  });

  it('keeps the set of live channels up, ignoring talk and listen streams', () => {
    let up: ReadonlySet<string> = new Set();
    up = applyChannelPush(up, { key: '11-2', kind: 'live', up: true });
    up = applyChannelPush(up, { key: '11-1', kind: 'talk', up: true });
    expect([...up]).toEqual(['11-2']);
    const same = applyChannelPush(up, { key: '11-2', kind: 'live', up: true });
    expect(same).toBe(up);
    expect([...applyChannelPush(up, { key: '11-2', kind: 'live', up: false })]).toEqual([]);
  });
});
