import { useEffect, useState } from 'react';
import { http } from '../../api/client';
import type { ApiReply } from '../../api/types';

/** A driver as `GET /api/common/driver/{id}.json` answers it; only `id` is sure (platform-spec §3). */
export interface CachedDriver {
  id: number;
  name?: string | null;
  phone?: string | null;
  [field: string]: unknown;
}

type Fetch = (id: number) => Promise<ApiReply<CachedDriver | null>>;

const fetchDriver: Fetch = (id) => http.get<CachedDriver | null>(`/api/common/driver/${id}.json`, { quiet: true });

const cached = new Map<number, CachedDriver>();
const pending = new Map<number, Promise<CachedDriver | null>>();

/**
 * The one way the console reads a driver by id (platform-spec §3, §7 GET /api/common/driver/{id}.json): a driver
 * fetched from the server is cached for the session; when the server answers empty data, an object holding only
 * the id is cached, so the empty answer is not asked again. A failed request (network, 404 outside the caller's
 * enterprises) caches nothing and resolves null, the spec's "driver get returns nothing" (§8); the next read
 * asks again. Concurrent reads of one id share one request.
 */
export function loadDriver(id: number, fetch: Fetch = fetchDriver): Promise<CachedDriver | null> {
  const known = cached.get(id);
  if (known) return Promise.resolve(known);
  const inFlight = pending.get(id);
  if (inFlight) return inFlight;
  const request = fetch(id)
    .then((reply) => {
      if (reply.code !== 0) return null;
      const driver = reply.data && typeof reply.data === 'object' ? { ...reply.data, id } : { id };
      cached.set(id, driver);
      return driver;
    })
    .catch(() => null)
    .finally(() => pending.delete(id));
  pending.set(id, request);
  return request;
}

/** A driver the console already holds whole (a car detail embeds its driver): later reads need no request. */
export function rememberDriver(driver: CachedDriver): void {
  cached.set(driver.id, driver);
}

/** The cache lives for one signed-in user (cleared when the user changes or signs out). */
export function clearDriverCache(): void {
  cached.clear();
  pending.clear();
}

/** The cached driver of `id` (null while loading, for no id, or when the read failed). */
export function useDriver(id: number | null | undefined): CachedDriver | null {
  const [loaded, setLoaded] = useState<{ id: number; driver: CachedDriver | null } | null>(null);
  useEffect(() => {
    if (id == null) return undefined;
    let live = true;
    void loadDriver(id).then((driver) => {
      if (live) setLoaded({ id, driver });
    });
    return () => {
      live = false;
    };
  }, [id]);
  if (id == null) return null;
  return loaded?.id === id ? loaded.driver : cached.get(id) ?? null;
}
