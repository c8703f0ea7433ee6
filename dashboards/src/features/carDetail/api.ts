/** The detail page's reads: one summary (`GET /api/car/{id}/detail.json`) and its photos. */
import { download, http } from '../../api/client';
import { mediaUrl } from '../media/mediaPush';

export interface DetailAddress {
  address: string;
  province: string;
  city: string;
  district: string;
  adcode: string;
}

export interface DetailDevice {
  id: number;
  deviceSn: string;
  phone: string;
  deviceName: string | null;
  protocol: string;
  protocolVersion: string;
  master: boolean;
  online: 0 | 1;
  bizState: number;
  acc: number;
  onlineTime: string | null;
  offlineTime: string | null;
  sim: { id: number; iccid: string | null; msisdn: string; operator: number | null; expireDate: string | null } | null;
}

export interface DetailAlarmPoint {
  time: string;
  lng: number;
  lat: number;
  speed: number | null;
  alarmType: number;
  bits: number[];
}

export interface CarDetail {
  car: {
    id: number;
    plateNumber: string;
    plateColor: number | null;
    vin: string | null;
    enterpriseName: string;
    groupName: string | null;
    carModelName: string | null;
    carTypeName: string | null;
    masterDeviceId: number | null;
  };
  driver: { id: number; name: string; phone: string | null; licenseNo: string | null; photoId: number | null } | null;
  devices: DetailDevice[];
  deviceId: number | null;
  protocol: string | null;
  state: { online: 0 | 1; deviceState: number; bizState: number; acc: number } | null;
  position: {
    time: string;
    lng: number;
    lat: number;
    speed: number | null;
    direction: number | null;
    altitude: number | null;
    mileage: number | null;
    alarmType: number;
    acc: number;
    address: DetailAddress;
  } | null;
  today: { since: string; mileageKm: number | null; points: number; alarmCount: number; alarms: DetailAlarmPoint[] };
  photos: DetailPhoto[];
}

/** A photo of the car: its terminals' latest uploads (`source` terminal, bytes at /file{objectKey}) and
 * its driver's (`source` driver, `/api/driver/photo/{id}.json`). Ids are unique per source only. */
export interface DetailPhoto {
  id: number;
  contentType: string;
  createTime: string;
  source: string;
  objectKey?: string;
  fileStoreType?: number;
}

/** Cars of the caller's subtree (the server's default scope): a subsidiary's car too.  */
export function fetchCarDetail(carId: number, deviceId: number | null, signal?: AbortSignal) {
  return http.get<CarDetail>(`/api/car/${carId}/detail.json`, {
    params: { deviceId: deviceId ?? undefined },
    signal,
    quiet: true,
  });
}

/** A URL showing the photo, or null (no permission, gone): an object URL of a terminal photo (fetched
 * with the token; the caller revokes it) or a data: URL of a driver photo. */
export async function fetchPhotoUrl(photo: DetailPhoto, signal?: AbortSignal): Promise<string | null> {
  if (photo.source === 'terminal') {
    if (!photo.objectKey) return null;
    const url = mediaUrl({ id: String(photo.id), objectKey: photo.objectKey, fileStoreType: photo.fileStoreType ?? 1 });
    const file = await download(url, 'photo', { signal, quiet: true });
    return file ? URL.createObjectURL(file.blob) : null;
  }
  const reply = await http.get<{ contentType: string; content: string }>(`/api/driver/photo/${photo.id}.json`, {
    signal,
    quiet: true,
  });
  return reply.code === 0 && reply.data ? `data:${reply.data.contentType};base64,${reply.data.content}` : null;
}
