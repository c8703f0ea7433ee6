import { http } from '../../api/client';
import type { ListPageReply, ListRecord } from '../list/types';

export function fetchRecord(entity: 'car' | 'driver', id: number, signal?: AbortSignal) {
  return http.get<ListRecord>(`/api/common/${entity}/${id}.json`, { signal });
}

/** The devices fitted to a car (platform-spec §7: `query/device.json`, body carId, page size 1000). */
export function carDevices(carId: number, signal?: AbortSignal) {
  return http.post<ListPageReply>('/api/common/query/device.json', {
    params: { countable: false, pageSize: 1000, select: 'id,phone,deviceSn,deviceName,state' },
    body: { carId },
    signal,
  });
}

/** Devices of the car's enterprise fitted to no car: the ones that can be attached. */
export function freeDevices(enterpriseId: number, signal?: AbortSignal) {
  return http.post<ListPageReply>('/api/common/query/device.json', {
    params: { countable: false, pageSize: 1000, select: 'id,phone,deviceSn,deviceName', orderBy: 'phone' },
    body: { 'carId.exists': false, enterpriseId },
    signal,
  });
}

/** Saves the car's device list and master; quiet: the page shows the server's reason. */
export function saveCarDevices(carId: number, deviceIds: number[], masterDeviceId: number | null) {
  return http.patch<ListRecord>(`/api/common/car/${carId}.json`, {
    body: { deviceIds, masterDeviceId },
    quiet: true,
  });
}

export function setDeviceState(id: unknown, action: 'enable' | 'disable') {
  return http.post<{ id: number; state: number }>(`/api/device/${String(id)}/${action}.json`);
}

export function saveDriver(id: number | null, body: Record<string, unknown>) {
  return id === null
    ? http.post<ListRecord>('/api/common/driver.json', { body, quiet: true })
    : http.patch<ListRecord>(`/api/common/driver/${id}.json`, { body, quiet: true });
}

export function uploadPhoto(file: File) {
  const form = new FormData();
  form.append('file', file);
  return http.post<{ id: number }>('/api/driver/photo.json', { body: form });
}

export interface Photo {
  contentType: string;
  content: string;
}

export function fetchPhoto(id: number, signal?: AbortSignal) {
  return http.get<Photo>(`/api/driver/photo/${id}.json`, { signal, quiet: true });
}

/** A photo as an `<img>` source. */
export function photoSource(photo: Photo): string {
  return `data:${photo.contentType};base64,${photo.content}`;
}

/** The terminal registration policy of the caller's enterprise (`/api/enterprise/registrationPolicy.json`). */
export interface RegistrationPolicy {
  requireImei: boolean;
  approveReregistration: boolean;
  approvalWindowMin: number;
  /** Read only: true when it is an ancestor's or the default, not the enterprise's own. */
  inherited?: boolean;
}

export function fetchRegistrationPolicy() {
  return http.get<RegistrationPolicy>('/api/enterprise/registrationPolicy.json');
}

export function saveRegistrationPolicy(policy: RegistrationPolicy) {
  const { requireImei, approveReregistration, approvalWindowMin } = policy;
  return http.put<RegistrationPolicy>('/api/enterprise/registrationPolicy.json', {
    body: { requireImei, approveReregistration, approvalWindowMin },
  });
}

/** Approve or refuse a re-registration held for an administrator (a security notice's request). */
export function decideRegistration(deviceId: number, requestId: number, decision: 'approve' | 'refuse') {
  return http.post<{ requestId: number; deviceId: number; state: string }>(
    `/api/device/${String(deviceId)}/${decision}Registration.json`,
    { body: { requestId } },
  );
}
