/**
 * The live map's REST calls (api/README.md), all through the one API client, whose handler has
 * already shown any failure. Directory loads throw ApiFailure (the page offers a retry); position
 * and address reads resolve to what they got.
 */
import { http, type RequestOptions } from '../../../api/client';
import { snapshotFromReply, type FleetSnapshot, type LastPositionsReply } from '../../../live/lastPositions';
import { fromRest, type RestLastPosition } from '../../../live/positionStore';
import type { LivePosition } from '../../../live/types';
import { CAR_VIEW_SELECT, type CarRow, type EnterpriseRow, type GroupRow, type MapConfig } from './types';

const PAGE_SIZE = 1000;
/** Optional endpoints: a failure is not worth an error notification. */
const QUIET: Partial<RequestOptions> = { quiet: true };

/** A failed call whose failure the client has already shown. */
export class ApiFailure extends Error {
  constructor(readonly code: number) {
    super(`API failure ${code}`);
  }
}

function unwrap<T>(reply: { code: number; data: T | null }, signal?: AbortSignal): T | null {
  if (signal?.aborted) return null;
  if (reply.code !== 0) throw new ApiFailure(reply.code);
  return reply.data;
}

interface Page<T> {
  list: T[];
  pageNo: number;
  pageSize: number;
  total?: number;
}

export async function fetchMapConfig(signal?: AbortSignal): Promise<MapConfig> {
  const reply = await http.get<MapConfig | null>('/api/system/mapConfig.json', { signal, ...QUIET });
  return reply.code === 0 && reply.data ? reply.data : {};
}

export async function fetchEnterprises(signal?: AbortSignal): Promise<EnterpriseRow[]> {
  const reply = await http.get<EnterpriseRow[] | null>('/api/aas/subsidiary.json', {
    params: { select: 'id,shortName,children' },
    signal,
  });
  return unwrap(reply, signal) ?? [];
}

export async function fetchGroups(signal?: AbortSignal): Promise<GroupRow[]> {
  const reply = await http.post<Page<GroupRow> | null>('/api/common/query/group.json', {
    params: {
      select: 'id,name,enterpriseId,parentId',
      countable: false,
      orderBy: 'createTime',
      pageNo: 1,
      pageSize: PAGE_SIZE,
    },
    body: {},
    signal,
  });
  return unwrap(reply, signal)?.list ?? [];
}

/** Every car of the scope (pages of 1000, most recently online first). */
export async function fetchCars(signal?: AbortSignal, maxPages = 50): Promise<CarRow[]> {
  const rows: CarRow[] = [];
  for (let pageNo = 1; pageNo <= maxPages; pageNo += 1) {
    const reply = await http.post<Page<CarRow> | null>('/api/common/query/carView.json', {
      params: {
        countable: false,
        orderBy: 'lastOnlineTime',
        desc: true,
        pageNo,
        pageSize: PAGE_SIZE,
        select: CAR_VIEW_SELECT,
      },
      body: {},
      signal,
    });
    const list = unwrap(reply, signal)?.list ?? [];
    rows.push(...list);
    if (list.length < PAGE_SIZE || signal?.aborted) break;
  }
  return rows;
}

/** Last position of one device, or null before its first fix (or on failure). */
export async function fetchLastPosition(deviceId: number, signal?: AbortSignal): Promise<RestLastPosition | null> {
  const reply = await http.get<RestLastPosition | null>(`/api/gps/device/${deviceId}/last.json`, {
    signal,
  });
  return reply.code === 0 ? reply.data : null;
}

/**
 * Latest positions of many devices: one last.json per device for a few (bounded concurrency), one
 * gps query per 1000 devices over the window since `sinceMs` otherwise (newest row per device wins).
 * Devices without a fix in the answer are simply absent.
 */
export async function fetchLatestPositions(
  deviceIds: readonly number[],
  fallbackBizState: (deviceId: number) => number,
  options: { sinceMs?: number; signal?: AbortSignal; perDeviceLimit?: number } = {},
): Promise<{ positions: LivePosition[]; missing: number[] }> {
  const { signal, sinceMs } = options;
  const perDeviceLimit = options.perDeviceLimit ?? 50;
  const found = new Map<number, LivePosition>();
  if (sinceMs === undefined || deviceIds.length <= perDeviceLimit) {
    await forEachLimited(deviceIds, 6, async (deviceId) => {
      const row = await fetchLastPosition(deviceId, signal);
      if (row && typeof row.lng === 'number') found.set(deviceId, fromRest({ ...row, deviceId }, fallbackBizState(deviceId)));
    });
  } else {
    for (let i = 0; i < deviceIds.length; i += 1000) {
      const chunk = deviceIds.slice(i, i + 1000);
      const reply = await http.post<Page<RestLastPosition> | null>('/api/common/query/gps.json', {
        params: {
          countable: false,
          orderBy: 'time',
          desc: true,
          pageNo: 1,
          pageSize: 10000,
          select: 'deviceId,carId,time,lng,lat,direction,speed,mileage,oilmass,altitude,alarm,acc',
        },
        body: { 'deviceId.in': chunk, 'time.gte': sinceMs },
        signal,
      });
      for (const row of reply.data?.list ?? []) {
        if (!found.has(row.deviceId)) found.set(row.deviceId, fromRest(row, fallbackBizState(row.deviceId)));
      }
    }
  }
  return { positions: Array.from(found.values()), missing: deviceIds.filter((id) => !found.has(id)) };
}

/**
 * Every vehicle of the caller's scope in one call (POST /api/gps/last.json, the subtree by default): device states
 * and last fixes. null when the call failed (the caller falls back to the car rows' states).
 */
export async function fetchFleetSnapshot(signal?: AbortSignal): Promise<FleetSnapshot | null> {
  const reply = await http.post<LastPositionsReply | null>('/api/gps/last.json', {
    body: {},
    signal,
    ...QUIET,
  });
  if (signal?.aborted || reply.code !== 0 || !reply.data || !Array.isArray(reply.data.rows)) return null;
  return snapshotFromReply(reply.data);
}

/** Addresses are cached per coordinate rounded to this many decimals (about 100 m). */
const ADDRESS_DECIMALS = 3;
const ADDRESS_CACHE_LIMIT = 2000;
const addressCache = new Map<string, Promise<string | null>>();

export function addressKey(lng: number, lat: number): string {
  return `${lng.toFixed(ADDRESS_DECIMALS)},${lat.toFixed(ADDRESS_DECIMALS)}`;
}

/**
 * Address of a point (GET /api/regeo/geocode.json, WGS84), or null while unavailable. One request
 * per rounded coordinate: later callers share its answer; a failure is forgotten so it is re-asked.
 */
export function fetchAddress(lng: number, lat: number): Promise<string | null> {
  const key = addressKey(lng, lat);
  const cached = addressCache.get(key);
  if (cached) return cached;
  const [roundedLng, roundedLat] = key.split(',').map(Number);
  const pending = http
    .get<{ address?: string } | null>('/api/regeo/geocode.json', { params: { lng: roundedLng, lat: roundedLat }, ...QUIET })
    .then((reply) => {
      const address = reply.code === 0 ? (reply.data?.address ?? null) : null;
      if (!address) addressCache.delete(key);
      return address;
    });
  if (addressCache.size >= ADDRESS_CACHE_LIMIT) addressCache.delete(addressCache.keys().next().value as string);
  addressCache.set(key, pending);
  return pending;
}

async function forEachLimited<T>(items: readonly T[], limit: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next];
      next += 1;
      await run(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
