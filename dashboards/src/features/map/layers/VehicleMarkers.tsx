/**
 * The vehicle markers as a map layer component: the imperative VehicleMarkerLayer is created in an
 * effect and fed straight from the position store, so a position update never renders React.
 * Props only change when the user ticks vehicles or flips a map setting.
 */
import { useEffect, useRef } from 'react';
import type { LiveHub } from '../../../live/LiveHub';
import type { TickedVehicle } from '../hooks/useTicked';
import { claimView, useLeafletMap } from '../mapContext';
import type { CoordSystem } from './coords';
import { VehicleMarkerLayer } from './VehicleMarkerLayer';

export interface VehicleMarkersProps {
  hub: LiveHub;
  vehicles: readonly TickedVehicle[];
  clustering: boolean;
  coord: CoordSystem;
  /** Bumped by the "show all" button: fit the map to the ticked vehicles. */
  fitRequest: number;
  onSelect: (deviceId: number) => void;
}

const FIT_WAIT_MS = 10000;

export function VehicleMarkers({ hub, vehicles, clustering, coord, fitRequest, onSelect }: VehicleMarkersProps) {
  const map = useLeafletMap();
  const layerRef = useRef<VehicleMarkerLayer | null>(null);
  const onSelectRef = useRef(onSelect);
  const settings = useRef({ clustering, coord });
  /** Newly ticked vehicles still waiting for a first position: the view fits when it arrives. */
  const awaitingFit = useRef({ ids: new Set<number>(), until: 0 });
  const previousIds = useRef(new Set<number>());

  useEffect(() => {
    onSelectRef.current = onSelect;
    settings.current = { clustering, coord };
  });

  useEffect(() => {
    const layer = new VehicleMarkerLayer(map, {
      clustering: settings.current.clustering,
      coord: settings.current.coord,
      onSelect: (deviceId) => onSelectRef.current(deviceId),
    });
    layerRef.current = layer;
    let fitTimer: ReturnType<typeof setTimeout> | null = null;
    const unsubscribe = hub.positions.subscribe((changed) => {
      layer.update(changed);
      const awaiting = awaitingFit.current;
      if (awaiting.ids.size === 0 || Date.now() > awaiting.until) return;
      if (!changed.some((p) => awaiting.ids.has(p.deviceId))) return;
      for (const p of changed) awaiting.ids.delete(p.deviceId);
      if (fitTimer) clearTimeout(fitTimer);
      fitTimer = setTimeout(() => {
        if (layer.fit()) claimView(map);
      }, 300);
    });
    return () => {
      if (fitTimer) clearTimeout(fitTimer);
      unsubscribe();
      layer.destroy();
      layerRef.current = null;
      previousIds.current = new Set();
    };
  }, [map, hub]);

  useEffect(() => {
    layerRef.current?.setClustering(clustering);
  }, [clustering]);

  useEffect(() => {
    layerRef.current?.setCoordSystem(coord);
  }, [coord]);

  // Ticked set → markers; newly ticked vehicles make the view fit all ticked ones (200 px padding).
  useEffect(() => {
    const layer = layerRef.current;
    if (!layer) return;
    const missing = new Set(layer.show(vehicles, (id) => hub.positions.get(id)));
    const added = vehicles.map((v) => v.deviceId).filter((id) => !previousIds.current.has(id));
    previousIds.current = new Set(vehicles.map((v) => v.deviceId));
    if (added.length === 0) return;
    if (added.some((id) => !missing.has(id)) && layer.fit()) claimView(map);
    const waiting = added.filter((id) => missing.has(id));
    awaitingFit.current = { ids: new Set(waiting), until: Date.now() + FIT_WAIT_MS };
  }, [map, hub, vehicles]);

  useEffect(() => {
    if (fitRequest > 0 && layerRef.current?.fit()) claimView(map);
  }, [map, fitRequest]);

  return null;
}
