/**
 * REST reads around the socket for the ticked vehicles: the last position of a newly ticked vehicle
 * that neither the bulk read nor the socket has reported (once `ready`, i.e. the bulk read answered),
 * and every 5 s the ticked online vehicles (console-spec §4 "map position refresh"). After a
 * reconnect the bulk read (useFleetSnapshot) resyncs everything. All through hub.ingest, the same
 * coalesced path as pushed positions.
 */
import { useEffect, useRef } from 'react';
import { BIZ_NO_SIGNAL } from '../../../live/bizState';
import type { LiveHub } from '../../../live/LiveHub';
import { isVehicleOnline } from '../../../live/vehicleStates';
import { fetchLatestPositions } from '../model/api';
import { REFRESH_TICKED_MS } from '../model/constants';
import type { TickedVehicle } from './useTicked';

export function useTickedPositions(
  hub: LiveHub | null,
  vehicles: readonly TickedVehicle[],
  onNoPosition: (plates: string[]) => void,
  ready = true,
): void {
  const latest = useRef({ vehicles, onNoPosition });
  const requested = useRef(new Set<number>());
  useEffect(() => {
    latest.current = { vehicles, onNoPosition };
  });

  // First positions of newly ticked vehicles the socket has not reported.
  useEffect(() => {
    if (!hub || !ready) return;
    const pending = requested.current;
    const toFetch = vehicles.filter((v) => !hub.positions.get(v.deviceId) && !pending.has(v.deviceId));
    if (toFetch.length === 0) return;
    toFetch.forEach((v) => pending.add(v.deviceId));
    const bizOf = (id: number) => hub.states.get(id)?.bizState ?? BIZ_NO_SIGNAL;
    void fetchLatestPositions(
      toFetch.map((v) => v.deviceId),
      bizOf,
    ).then(({ positions, missing }) => {
      toFetch.forEach((v) => pending.delete(v.deviceId));
      hub.ingest(positions);
      const stillTicked = new Map(latest.current.vehicles.map((v) => [v.deviceId, v.plate]));
      const plates = missing.filter((id) => stillTicked.has(id) && !hub.positions.get(id)).map((id) => stillTicked.get(id)!);
      if (plates.length > 0) latest.current.onNoPosition(plates);
    });
  }, [hub, vehicles, ready]);

  // Every 5 s: the ticked vehicles that are online.
  useEffect(() => {
    if (!hub) return undefined;
    let busy = false;
    const timer = setInterval(() => {
      if (busy || document.visibilityState === 'hidden') return;
      const online = latest.current.vehicles.filter((v) => isVehicleOnline(hub.states.get(v.deviceId))).map((v) => v.deviceId);
      if (online.length === 0) return;
      busy = true;
      const bizOf = (id: number) => hub.states.get(id)?.bizState ?? BIZ_NO_SIGNAL;
      void fetchLatestPositions(online, bizOf, { sinceMs: Date.now() - 3 * REFRESH_TICKED_MS })
        .then(({ positions }) => hub.ingest(positions))
        .finally(() => {
          busy = false;
        });
    }, REFRESH_TICKED_MS);
    return () => clearInterval(timer);
  }, [hub]);
}
