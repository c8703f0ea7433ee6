/**
 * The video calls (console-spec §7, api/README.md "Live video"), through the one command path of
 * features/command (the same client, the same failure handler: a refusal such as "设备不在线，无法开启
 * 实时音视频" is shown there and the caller only checks `code === 0`).
 */
import { http } from '../../api/client';
import type { ApiReply } from '../../api/types';
import { commandUrl, type CommandTarget } from '../command/api';
import { DEFAULT_CHANNEL, DEFAULT_STREAM_TYPE, type DataType, type StreamType } from './constants';

export type StreamKind = 'live' | 'listen' | 'talk' | 'playback';
export type VideoCode = '9101' | '9102' | '9201' | '9202' | '9205';

/** The start answer (live-talk stream response of console-spec §3, plus the signed URLs' expiry). */
export interface StreamStart {
  id: number | null;
  carId: number | null;
  deviceId: number;
  state: 'created' | 'reused' | string;
  streamId: string;
  flvUrl: string;
  wsUrl: string;
  talkUrl?: string | null;
  urlExpiresAt: number;
  kind: StreamKind;
  channelId: number;
  dataType?: number;
  streamType?: number;
  /** The media server's grace (s): a stream nobody watches this long is stopped. */
  stopGraceS?: number;
}

/** Stream info and status (`GET /api/video/{deviceSn}/{channel}.json`): `updateTime` set means up. */
export interface StreamInfo {
  streamId: string | null;
  deviceId: number;
  deviceSn: string;
  channelId: number;
  kind: StreamKind;
  updateTime: number | null;
  currentTime: number;
  serverAvailable: boolean;
  online?: boolean;
  viewers?: number;
  browserPlayable?: boolean;
  flvUrl?: string;
  wsUrl?: string;
  talkUrl?: string | null;
  urlExpiresAt?: number;
}

function post<T>(target: CommandTarget, code: VideoCode, payload: Record<string, unknown>, quiet = false): Promise<ApiReply<T | null>> {
  const body = target.carId !== undefined && target.deviceId !== undefined ? { ...payload, deviceId: target.deviceId } : payload;
  return http.post<T | null>(commandUrl(target, code as never), { body, quiet });
}

/** 9101: live video (data type 0/1), talk (2) or listen (3) on a channel. */
export function startStream(target: CommandTarget, options: { channelId?: number; dataType: DataType; streamType?: StreamType }) {
  return post<StreamStart>(target, '9101', {
    channelId: options.channelId ?? DEFAULT_CHANNEL,
    dataType: options.dataType,
    streamType: options.streamType ?? DEFAULT_STREAM_TYPE,
  });
}

/** 9102 command values (0 close, 1 switch stream, 2 pause, 3 resume, 4 close talk). */
export const CONTROL = { close: 0, switchStream: 1, pause: 2, resume: 3, closeTalk: 4 } as const;

/**
 * 9102: stop (or switch) a stream. Talk stop is command 4, commadType 0, streamType 1 (console-spec §7);
 * the server sends nothing to an offline terminal (`not_sent`) or while another user watches (`kept`).
 * Quiet: a stop is best effort, the window is cleared whatever the answer.
 */
export function controlStream(target: CommandTarget, streamId: string, channelId: number, command: number, streamType: StreamType = 0) {
  return post<{ state: string }>(target, '9102', { streamId, channelId, command, commadType: 0, streamType }, true);
}

export function stopStream(target: CommandTarget, streamId: string, channelId: number, kind: StreamKind) {
  return kind === 'talk'
    ? controlStream(target, streamId, channelId, CONTROL.closeTalk, 1)
    : controlStream(target, streamId, channelId, CONTROL.close, 0);
}

/** Stream info and fresh signed URLs (the start's URLs expire after 120 s). */
export async function fetchStreamInfo(deviceSn: string, channelId: number, kind: StreamKind = 'live', signal?: AbortSignal): Promise<StreamInfo | null> {
  const reply = await http.get<StreamInfo | null>(`/api/video/${encodeURIComponent(deviceSn)}/${channelId}.json`, {
    params: { kind },
    signal,
    quiet: true,
  });
  return reply.code === 0 ? reply.data : null;
}

/** The heartbeat of the streams still played or talked on (every 5 s). */
export function sendHeartbeat(streamIds: readonly string[]) {
  return http.put<{ known: string[] } | null>(`/api/video/heartbeat/${streamIds.map(encodeURIComponent).join(',')}.json`, {
    quiet: true,
  });
}

/** One recording of the terminal's 0x1205 answer to 9205. */
export interface Recording {
  channelId: number;
  startTime: string;
  endTime: string;
  alarmFlags?: number;
  mediaType: number;
  streamType: number;
  storageType: number;
  fileSize?: number;
}

export interface VideoCommandState {
  id: number;
  state: string;
  result: number | null;
  reply: { resources?: unknown[]; items?: unknown[] } | Record<string, unknown> | null;
  streamId: string | null;
}

export function queryRecordings(target: CommandTarget, payload: { channelId: number; startTime: string; endTime: string; mediaType?: number; streamType?: number; storageType?: number }) {
  return post<{ id: number; state: string }>(target, '9205', { alarmFlags: 0, mediaType: 0, streamType: 0, storageType: 0, ...payload });
}

export async function fetchVideoCommandState(id: number, signal?: AbortSignal): Promise<VideoCommandState | null> {
  const reply = await http.get<VideoCommandState | null>(`/api/video/command/${id}/state.json`, { signal, quiet: true });
  return reply.code === 0 ? reply.data : null;
}

export function startPlayback(target: CommandTarget, recording: Recording) {
  return post<StreamStart>(target, '9201', {
    channelId: recording.channelId,
    startTime: recording.startTime,
    endTime: recording.endTime,
    mediaType: recording.mediaType,
    streamType: recording.streamType,
    storageType: recording.storageType,
    playbackMode: 0,
    speed: 0,
  });
}

/** 9202 control values and the terminal's speed codes (1 = 1x, 2 = 2x, 3 = 4x, 4 = 8x, 5 = 16x). */
export const PLAYBACK_CONTROL = { play: 0, pause: 1, end: 2, fastForward: 3, rewind: 4, seek: 5, forward: 6 } as const;

export function controlPlayback(target: CommandTarget, payload: { channelId: number; control: number; speed?: number; seekTime?: string }) {
  return post<{ streamId: string; id?: number | null }>(target, '9202', { speed: 0, ...payload });
}
