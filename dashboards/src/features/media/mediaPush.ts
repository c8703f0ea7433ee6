/**
 * Push 9 (media uploaded, console-spec §3 "media upload message") and where its bytes are read
 * (console-spec §3 attachment rule): fileStoreType 2 or lower from `/file{objectKey}`, above 2 from
 * `/api/media/obs/download/{_id}.json`. Both need the Authorization header, so the console fetches
 * them as blobs.
 */
import type { PushMessage } from '../../live/types';

export const PUSH_MEDIA_UPLOADED = 9;

/** 0 photo, 1 audio, 2 video (console-spec §4). */
export type MediaKind = 'photo' | 'audio' | 'video';
const KINDS: MediaKind[] = ['photo', 'audio', 'video'];

export interface MediaUpload {
  id: string;
  deviceId: number | null;
  carId: number | null;
  plateNumber: string;
  deviceName: string;
  kind: MediaKind;
  objectKey: string;
  fileStoreType: number;
  /** The event code (platform-spec §9): 0 platform command, 1 timed, 2 robbery, 3 collision, ... */
  bizType: number | null;
  time: string;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : value == null ? '' : String(value));
const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

export function mediaKind(mediaType: unknown): MediaKind {
  return KINDS[num(mediaType) ?? 0] ?? 'photo';
}

/** The upload a push 9 announces; null for other pushes or one without an object key. */
export function mediaUpload(push: PushMessage): MediaUpload | null {
  if (push.type !== PUSH_MEDIA_UPLOADED || !push.data) return null;
  const data = push.data;
  const objectKey = text(data.objectKey);
  if (!objectKey) return null;
  return {
    id: text(data._id ?? data.id),
    deviceId: num(data.deviceId),
    carId: num(data.carId),
    plateNumber: text(data.plateNumber),
    deviceName: text(data.deviceName),
    kind: mediaKind(data.mediaType),
    objectKey,
    fileStoreType: num(data.fileStoreType) ?? 1,
    bizType: num(data.bizType),
    time: typeof data.time === 'number' ? new Date(data.time).toISOString() : text(data.time),
  };
}

/** The URL of the file's bytes by the spec's fileStoreType rule. */
export function mediaUrl(file: { id: string; objectKey: string; fileStoreType: number }): string {
  if (file.fileStoreType > 2) return `/api/media/obs/download/${encodeURIComponent(file.id)}.json`;
  return `/file${file.objectKey.startsWith('/') ? '' : '/'}${file.objectKey}`;
}

/** Seconds the popup stays open: 15 photo, 300 audio, 600 video (console-spec §4). */
export const AUTO_CLOSE_S: Record<MediaKind, number> = { photo: 15, audio: 300, video: 600 };
export const COUNTDOWN_STEP_S = 15;

/** The countdown shown after `elapsedS` seconds: whole 15 s steps left (0 = close now). */
export function countdownShown(kind: MediaKind, elapsedS: number): number {
  const total = AUTO_CLOSE_S[kind];
  const steps = Math.floor(Math.max(0, elapsedS) / COUNTDOWN_STEP_S);
  return Math.max(0, total - steps * COUNTDOWN_STEP_S);
}
