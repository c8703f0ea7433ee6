/**
 * The bulk last-positions read (contract A) on map load and after every LiveHub reconnect (house
 * style 9: pushes sent while disconnected are lost, so resync over REST). It sets every device's
 * state from the server and feeds the last fixes through the hub. When the read fails the states
 * come from the car rows instead (`fallbackStates`).
 */
import { useEffect, useRef, useState } from 'react';
import type { LiveHub } from '../../../live/LiveHub';
import type { VehicleState } from '../../../live/vehicleStates';
import { fetchFleetSnapshot } from '../model/api';

export type SnapshotStatus = 'loading' | 'loaded' | 'failed';

export function useFleetSnapshot(hub: LiveHub | null, fallbackStates: () => Promise<[number, VehicleState][]>): SnapshotStatus {
  const [status, setStatus] = useState<SnapshotStatus>('loading');
  const fallback = useRef(fallbackStates);
  useEffect(() => {
    fallback.current = fallbackStates;
  });

  useEffect(() => {
    if (!hub) return undefined;
    const controller = new AbortController();
    const load = async (signal?: AbortSignal) => {
      const snapshot = await fetchFleetSnapshot(signal);
      if (signal?.aborted) return;
      if (snapshot) {
        hub.resync(snapshot.states, snapshot.positions);
        setStatus('loaded');
      } else {
        hub.resync(await fallback.current(), []);
        setStatus('failed');
      }
    };
    void load(controller.signal);
    const unsubscribe = hub.onReconnect(() => load());
    return () => {
      controller.abort();
      unsubscribe();
    };
  }, [hub]);
  return status;
}
