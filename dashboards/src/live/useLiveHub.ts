/**
 * The live hub for the signed-in user's enterprise, held for as long as the calling component is
 * mounted. Every page shares the one hub (and the one socket) of liveConnection.
 */
import { useCallback, useEffect, useSyncExternalStore } from 'react';
import { getAccessToken, getAuthorization } from '../auth/session';
import { useSession } from '../auth/useSession';
import type { LiveHub } from './LiveHub';
import { acquireLive, currentLiveHub, stopLive, subscribeLiveHub } from './liveConnection';

export function useLiveHub(): LiveHub | null {
  const { user } = useSession();
  const enterpriseId = user?.enterpriseId;
  useEffect(() => {
    if (enterpriseId === undefined || enterpriseId === null) {
      stopLive(); // signed out: close the socket now, not after the release delay
      return undefined;
    }
    const lease = acquireLive(enterpriseId, getAccessToken, { getAuthorization });
    return () => lease.release();
  }, [enterpriseId]);
  const hub = useSyncExternalStore(subscribeLiveHub, currentLiveHub);
  return enterpriseId === undefined || enterpriseId === null ? null : hub;
}

/** The hub's connection status, re-rendering the caller on changes only. */
export function useLiveStatus(hub: LiveHub | null): string {
  const subscribe = useCallback(
    (listener: () => void) => (hub ? hub.onStatus(listener) : () => undefined),
    [hub],
  );
  return useSyncExternalStore(subscribe, () => hub?.status ?? 'idle');
}
