/**
 * The live map's one search box: a vehicle is found by its plate, VIN, SIM (the terminal's phone number,
 * or its SIM card's ICCID / MSISDN), terminal id or driver name, and the tree says which of them
 * matched. The rows already loaded answer at once; the server (GET /api/car/search.json, the caller's
 * tree) adds what the rows do not carry (the SIM card's ICCID and MSISDN). Pure but for `searchCars`.
 */
import { http } from '../../../api/client';
import type { CarRow } from '../model/types';
import type { TreeModel } from './treeModel';

export type MatchField = 'plateNumber' | 'vin' | 'sim' | 'terminalId' | 'driverName';

export interface VehicleMatch {
  field: MatchField;
  value: string;
}

/** The row fields searched, in the order a match is named (the server's order too). */
const LOCAL_FIELDS: [MatchField, (car: CarRow) => string | null | undefined][] = [
  ['plateNumber', (car) => car.plateNumber],
  ['vin', (car) => car.vin],
  ['sim', (car) => car.masterDevicePhone],
  ['terminalId', (car) => car.masterDeviceSn],
  ['driverName', (car) => car.driverName],
];

export const normalise = (query: string): string => query.trim().toLowerCase();

/** The first field of `car` containing `needle` (already normalised), or null. */
export function matchCar(car: CarRow, needle: string): VehicleMatch | null {
  if (!needle) return null;
  for (const [field, read] of LOCAL_FIELDS) {
    const value = read(car);
    if (value && value.toLowerCase().includes(needle)) return { field, value };
  }
  return null;
}

/** Vehicle key → match, over the loaded rows. */
export function matchLocally(model: TreeModel, query: string): Map<string, VehicleMatch> {
  const needle = normalise(query);
  const found = new Map<string, VehicleMatch>();
  if (!needle) return found;
  for (const [key, car] of model.cars) {
    const match = matchCar(car, needle);
    if (match) found.set(key, match);
  }
  return found;
}

export interface ServerMatch {
  carId: number;
  matchedField: string;
  matchedValue: string | null;
}

const FIELDS = new Set<string>(LOCAL_FIELDS.map(([field]) => field));

/** The local matches plus the server's for cars the rows did not match (keys by car id). */
export function mergeMatches(model: TreeModel, local: Map<string, VehicleMatch>, server: readonly ServerMatch[]): Map<string, VehicleMatch> {
  if (server.length === 0) return local;
  const keyByCar = new Map<number, string>();
  for (const [key, car] of model.cars) keyByCar.set(car.carId, key);
  const merged = new Map(local);
  for (const row of server) {
    const key = keyByCar.get(row.carId);
    if (!key || merged.has(key) || !FIELDS.has(row.matchedField)) continue;
    merged.set(key, { field: row.matchedField as MatchField, value: row.matchedValue ?? '' });
  }
  return merged;
}

export const SEARCH_MAX_CHARS = 64;

/** The server's matches for `query` ([] for an empty or over-long one, or when the call fails). */
export async function searchCars(query: string, signal?: AbortSignal): Promise<ServerMatch[]> {
  const keyword = query.trim();
  if (!keyword || keyword.length > SEARCH_MAX_CHARS) return [];
  const reply = await http.get<ServerMatch[] | null>('/api/car/search.json', {
    params: { keyword, limit: 200 },
    signal,
    quiet: true,
  });
  return reply.code === 0 && Array.isArray(reply.data) ? reply.data : [];
}
