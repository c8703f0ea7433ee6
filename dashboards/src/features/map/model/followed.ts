/**
 * The signed-in user's followed cars (platform-spec §7 POST /api/common/query/carUserView.json): read once
 * when the live map opens, changed with PUT / DELETE /api/car/{id}/follow.json. A change shows at once and
 * is taken back if the server refuses it (the API client has shown why).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { http } from '../../../api/client';

const NONE: ReadonlySet<number> = new Set();
const MAX_FOLLOWED = 1000;

export interface FollowedCars {
  followed: ReadonlySet<number>;
  toggle: (carId: number) => void;
}

export async function fetchFollowed(signal?: AbortSignal): Promise<Set<number>> {
  const reply = await http.post<{ list: { carId: number }[] } | null>('/api/common/query/carUserView.json', {
    params: { select: 'carId', countable: false, pageNo: 1, pageSize: MAX_FOLLOWED },
    body: {},
    signal,
    quiet: true,
  });
  return new Set(reply.code === 0 ? (reply.data?.list ?? []).map((row) => row.carId) : []);
}

export async function setFollowed(carId: number, on: boolean): Promise<boolean> {
  const url = `/api/car/${carId}/follow.json`;
  const reply = on ? await http.put(url, {}) : await http.delete(url, {});
  return reply.code === 0;
}

export function useFollowedCars(): FollowedCars {
  const [followed, setState] = useState<ReadonlySet<number>>(NONE);
  const current = useRef(followed);
  useEffect(() => {
    current.current = followed;
  }, [followed]);

  useEffect(() => {
    const controller = new AbortController();
    void fetchFollowed(controller.signal).then((ids) => {
      if (!controller.signal.aborted) setState(ids);
    });
    return () => controller.abort();
  }, []);

  const toggle = useCallback((carId: number) => {
    const on = !current.current.has(carId);
    const apply = (follow: boolean) =>
      setState((before) => {
        const next = new Set(before);
        if (follow) next.add(carId);
        else next.delete(carId);
        current.current = next; // a second click before the render toggles back
        return next;
      });
    apply(on);
    void setFollowed(carId, on).then((done) => {
      if (!done) apply(!on);
    });
  }, []);

  return { followed, toggle };
}
