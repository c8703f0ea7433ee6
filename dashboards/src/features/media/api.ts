import { http } from '../../api/client';

/** A deviceUploadFile row as the vehicle popup reads it. */
export interface PhotoRow {
  id: number | string;
  objectKey: string;
  fileStoreType: number | null;
}

/** The device's newest photo (deviceUploadFile, media type 0), or null. */
export async function fetchLatestPhoto(deviceId: number, signal?: AbortSignal): Promise<PhotoRow | null> {
  const reply = await http.post<{ list: PhotoRow[] } | null>('/api/common/query/deviceUploadFile.json', {
    params: { countable: false, pageNo: 1, pageSize: 1, orderBy: 'time', desc: true },
    body: { 'deviceId.eq': deviceId, 'mediaType.eq': 0 },
    signal,
    quiet: true,
  });
  return reply.code === 0 ? (reply.data?.list?.[0] ?? null) : null;
}
