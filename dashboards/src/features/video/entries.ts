/** Grid entries and talk targets from the channel tree's nodes. */
import type { ChannelNode } from './channelTree';
import { DATA_TYPE, DEFAULT_STREAM_TYPE } from './constants';
import type { TalkTarget } from './talkSession';
import { entryKey, type VideoEntry } from './windows';

export function entryOf(node: Pick<ChannelNode, 'carId' | 'deviceId' | 'deviceSn' | 'plateNumber' | 'channelId'>, dataType: number = DATA_TYPE.av): VideoEntry {
  return {
    key: entryKey(node.deviceId, node.channelId),
    carId: node.carId,
    deviceId: node.deviceId,
    deviceSn: node.deviceSn,
    plateNumber: node.plateNumber,
    channelId: node.channelId,
    dataType,
    streamType: DEFAULT_STREAM_TYPE,
  };
}

export function talkTargetOf(node: ChannelNode): TalkTarget {
  return {
    carId: node.carId,
    deviceId: node.deviceId,
    deviceSn: node.deviceSn,
    phone: node.phone,
    plateNumber: node.plateNumber,
    channelId: node.kind === 'talk' ? node.channelId : undefined,
  };
}
