/**
 * The fence calls beyond the generic entity routes (`fence`, `labelPoint`, `fenceBinding`, `fenceSync` are
 * queried, created and saved through features/list/api.ts): bind / unbind many vehicles at once, and the
 * area vehicle search. Every one needs the `fence` permission on the server.
 */
import { wktToGeoJSON } from 'betterknown';
import { http } from '../../api/client';
import { queryPage } from '../list/api';
import type { ListRecord } from '../list/types';
import type { Geometry } from './geometry';

export function bindVehicles(fenceId: number, carIds: number[]) {
  return http.post<{ bound: number }>(`/api/fence/${fenceId}/bind.json`, { body: { carIds } });
}

export function unbindVehicles(fenceId: number, carIds: number[]) {
  return http.post<{ unbound: number }>(`/api/fence/${fenceId}/unbind.json`, { body: { carIds } });
}

/** One vehicle of the area vehicle search: when it entered and left the area (null: before / after the window). */
export interface AreaVisit {
  carId: number;
  plateNumber: string;
  enterpriseName: string;
  enterTime: string | null;
  exitTime: string | null;
}

export function searchArea(geometry: Geometry, startTime: string, endTime: string, signal?: AbortSignal) {
  return http.post<AreaVisit[] | { list: AreaVisit[] }>('/api/fence/areaSearch.json', { body: { geometry, startTime, endTime }, signal });
}

/** Every row of an entity matching `body` (pages of 500; a fence binds at most a few thousand vehicles). */
export async function queryAll(entity: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<ListRecord[]> {
  const rows: ListRecord[] = [];
  for (let pageNo = 1; pageNo <= 20; pageNo += 1) {
    const reply = await queryPage(entity, { pageNo, pageSize: 500 }, body, signal);
    if (reply.code !== 0 || !reply.data) break;
    rows.push(...reply.data.list);
    if (reply.data.list.length < 500) break;
  }
  return rows;
}

/** GET /api/common/geoMapData/{id}.json: a district's outline (WKT, WGS-84, or GeoJSON) and centre; null for an
 * adcode that names no district (platform-spec §8). */
export interface GeoMapData {
  data: unknown;
  centerLat: number;
  centerLng: number;
}

export function fetchGeoMapData(id: string | number, signal?: AbortSignal) {
  return http.get<GeoMapData>(`/api/common/geoMapData/${encodeURIComponent(String(id))}.json`, { signal });
}

/** A district outline as GeoJSON: WKT text parsed (betterknown), a GeoJSON object as is, else null. */
export function outlineOf(data: unknown): GeoJSON.Geometry | null {
  if (typeof data === 'string') {
    try {
      return wktToGeoJSON(data);
    } catch {
      return null;
    }
  }
  return data && typeof data === 'object' && 'type' in data ? (data as GeoJSON.Geometry) : null;
}

/** One region of `GET /api/common/districtTree.json` (fleet.geo.district_tree): a province, city or district
 * with the regions under it (a municipality's districts directly under it). */
export interface DistrictNode {
  adcode: string;
  name: string;
  children?: DistrictNode[];
  /** false: no outline of its own (a city with districts: the data has no city layer), a way to its districts only. */
  outline?: false;
}

export function fetchDistrictTree(signal?: AbortSignal) {
  return http.get<DistrictNode[]>('/api/common/districtTree.json', { signal });
}
