import { describe, expect, it } from 'vitest';
import { channelList, channelTree, talkChannelOf, type VideoCarRow } from '../channelTree';

const row = (over: Partial<VideoCarRow>): VideoCarRow => ({
  carId: 1, plateNumber: '京A·00001', masterDeviceId: 11, masterDeviceSn: 'SIM0000001', masterDevicePhone: '13800000001',
  masterDeviceState: 1, hasMicrophone: 1, videoChannel: '1,2,3,4', talkChannel: '1', ...over,
});

describe('video channel tree', () => {
  it('gives each vehicle its video channels as children, keyed as the spec says', () => {
    const [car] = channelTree([row({})]);
    expect(car.key).toBe('c_1_11');
    expect(car.children?.map((c) => c.key)).toEqual(['ch_1_11_1', 'ch_1_11_2', 'ch_1_11_3', 'ch_1_11_4']);
  });

  it('adds the talk channel as its own entry when it is not a video channel', () => {
    const [car] = channelTree([row({ talkChannel: '36' })]);
    expect(car.children?.at(-1)).toMatchObject({ key: 'talk_1_11_36', kind: 'talk', channelId: 36 });
  });

  it('reads channel lists with full-width commas, blanks and repeats; skips cars without a device', () => {
    expect(channelList(' 3，1,,1, 2 ')).toEqual([1, 2, 3]);
    expect(channelTree([row({ masterDeviceId: null })])).toEqual([]);
    expect(talkChannelOf({ talkChannel: '', videoChannel: '2,3' })).toBe(2);
  });
});
