/**
 * The replay's REST calls (api/routes/tracks.py): one vehicle's track with its stops, its exports,
 * and the vehicle picker's search over carView. Failures went through the one client handler (the
 * server's range-limit message is shown there); callers read `reply.code`.
 */
import { download, http } from '../../api/client';
import type { TrackReply } from './track';

/** The caller's whole subtree, like the vehicle tree and the car list. */
export interface TrackRange {
  start: number;
  end: number;
}

export function trackUrl(carId: number, format: 'json' | 'csv' | 'gpx' | 'kml'): string {
  return `/api/gps/car/${carId}/track.${format}`;
}

export function fetchTrack(carId: number, range: TrackRange, signal?: AbortSignal, maxPoints = 2000) {
  return http.get<TrackReply>(trackUrl(carId, 'json'), { params: { start: range.start, end: range.end, maxPoints }, signal });
}

/** Every point of the range as a file, with the same Bearer auth as the list exports. */
export function exportTrack(carId: number, format: 'csv' | 'gpx' | 'kml', range: TrackRange, plateNumber: string) {
  return download(trackUrl(carId, format), `${plateNumber || carId}-track.${format}`, { params: { start: range.start, end: range.end } });
}

export interface CarOption {
  carId: number;
  plateNumber: string;
}

/** Vehicles whose plate contains `text` (the first 50), for the picker. */
export async function searchCars(text: string, signal?: AbortSignal, carIds?: number[]): Promise<CarOption[]> {
  const body: Record<string, unknown> = {};
  if (text) body['plateNumber.like'] = text;
  if (carIds?.length) body['carId.in'] = carIds;
  const reply = await http.post<{ list: CarOption[] } | null>('/api/common/query/carView.json', {
    params: { select: 'carId,plateNumber', orderBy: 'plateNumber', countable: false, pageNo: 1, pageSize: 50 },
    body,
    signal,
    quiet: true,
  });
  return reply.code === 0 && reply.data ? reply.data.list : [];
}
