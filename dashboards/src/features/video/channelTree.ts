/**
 * The video channel tree (platform-spec §7): `POST /api/common/query/carView.json` with videoChannel
 * and talkChannel selected, ordered by masterDeviceState, filter hasVideo.gt=0; each vehicle gets its
 * channel children, and the talk channel a separate entry when it is not among the video channels.
 * Node keys: c_{carId}_{deviceId}, ch_{car}_{device}_{channel}, talk_{car}_{device}_{channel}.
 */
import { http } from '../../api/client';

export interface VideoCarRow {
  carId: number;
  plateNumber: string;
  masterDeviceId: number | null;
  masterDeviceSn: string | null;
  masterDevicePhone: string | null;
  masterDeviceState: number | null;
  masterDeviceBizState?: number | null;
  hasMicrophone: number | null;
  videoChannel: string | null;
  talkChannel: string | null;
}

export interface ChannelNode {
  key: string;
  kind: 'car' | 'channel' | 'talk';
  carId: number;
  deviceId: number;
  deviceSn: string;
  phone: string;
  plateNumber: string;
  channelId: number;
  children?: ChannelNode[];
}

export const VIDEO_CAR_SELECT = 'carId,plateNumber,masterDeviceId,masterDeviceSn,masterDevicePhone,masterDeviceState,masterDeviceBizState,hasMicrophone,videoChannel,talkChannel';

export function channelList(text: string | null | undefined): number[] {
  const seen = new Set<number>();
  for (const part of (text ?? '').replace(/，/g, ',').split(',')) {
    const n = Number(part.trim());
    if (part.trim() && Number.isInteger(n) && n > 0 && n < 256) seen.add(n);
  }
  return Array.from(seen).sort((a, b) => a - b);
}

export function channelTree(rows: readonly VideoCarRow[]): ChannelNode[] {
  const nodes: ChannelNode[] = [];
  for (const row of rows) {
    if (row.masterDeviceId === null) continue;
    const base = {
      carId: row.carId,
      deviceId: row.masterDeviceId,
      deviceSn: row.masterDeviceSn ?? '',
      phone: row.masterDevicePhone ?? '',
      plateNumber: row.plateNumber,
    };
    const video = channelList(row.videoChannel);
    const channels = video.length ? video : [1];
    const children: ChannelNode[] = channels.map((channelId) => ({
      ...base, key: `ch_${row.carId}_${row.masterDeviceId}_${channelId}`, kind: 'channel', channelId,
    }));
    for (const channelId of channelList(row.talkChannel)) {
      if (!channels.includes(channelId)) children.push({ ...base, key: `talk_${row.carId}_${row.masterDeviceId}_${channelId}`, kind: 'talk', channelId });
    }
    nodes.push({ ...base, key: `c_${row.carId}_${row.masterDeviceId}`, kind: 'car', channelId: 0, children });
  }
  return nodes;
}

/** The talk channel of a vehicle: its first talk channel, else its first video channel, else 1. */
export function talkChannelOf(row: Pick<VideoCarRow, 'talkChannel' | 'videoChannel'>): number {
  return channelList(row.talkChannel)[0] ?? channelList(row.videoChannel)[0] ?? 1;
}

export async function fetchVideoCars(signal?: AbortSignal): Promise<VideoCarRow[]> {
  const reply = await http.post<{ list: VideoCarRow[] } | null>('/api/common/query/carView.json', {
    params: { countable: false, orderBy: 'masterDeviceState', desc: true, pageNo: 1, pageSize: 1000, select: VIDEO_CAR_SELECT },
    body: { 'hasVideo.gt': 0 },
    signal,
  });
  return reply.code === 0 ? (reply.data?.list ?? []) : [];
}
