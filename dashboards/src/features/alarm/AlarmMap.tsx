/**
 * The map of the real-time safety alarm dialog (console-spec §2: height 300, the vehicle marker), built
 * from the map feature's pieces: <LiveMap>, the configured base layer and the vehicle marker element.
 */
import L from 'leaflet';
import { useEffect, useMemo, useState } from 'react';
import { LiveMap } from '../map/LiveMap';
import { useMapConfig } from '../map/hooks/useMapConfig';
import { BaseLayer } from '../map/layers/BaseLayer';
import { availableBaseLayers, BLANK_LAYER_ID } from '../map/layers/baseLayers';
import { toDisplay, type CoordSystem } from '../map/layers/coords';
import { createVehicleElement, updateVehicleElement, vehicleIcon } from '../map/layers/vehicleIcon';
import { claimView, useLeafletMap } from '../map/mapContext';
import { DEFAULT_CENTER } from '../map/model/constants';
import { readPrefs } from '../map/model/prefs';

export const ALARM_MAP_HEIGHT = 300;
const ALARM_ZOOM = 15;

function AlarmMarker({ deviceId, plate, lng, lat, coord }: { deviceId: number; plate: string; lng: number; lat: number; coord: CoordSystem }) {
  const map = useLeafletMap();
  useEffect(() => {
    const element = createVehicleElement(deviceId, plate);
    updateVehicleElement(element, { lng, lat, direction: 0, bizState: 1 });
    const at = toDisplay(lng, lat, coord);
    const marker = L.marker(at, { icon: vehicleIcon(element) }).addTo(map);
    claimView(map);
    map.setView(at, ALARM_ZOOM);
    return () => {
      map.removeLayer(marker);
    };
  }, [map, deviceId, plate, lng, lat, coord]);
  return null;
}

export function AlarmMap({ deviceId, plate, lng, lat }: { deviceId: number | null; plate: string; lng: number | null; lat: number | null }) {
  const config = useMapConfig();
  const [prefs] = useState(readPrefs);
  const layers = useMemo(() => availableBaseLayers(config ?? {}), [config]);
  const baseLayer = layers.find((l) => l.id === (prefs.baseLayer ?? config?.defaultBaseLayer ?? BLANK_LAYER_ID)) ?? layers[0];
  const located = lng !== null && lat !== null && (lng !== 0 || lat !== 0);
  const center = located ? { lng, lat } : (config?.mapCenter ?? DEFAULT_CENTER);
  return (
    <div style={{ height: ALARM_MAP_HEIGHT, display: 'flex' }} data-testid="alarm-map">
      {config && baseLayer && (
        <LiveMap key={baseLayer.crs} crs={baseLayer.crs} coord={baseLayer.coord} center={center} zoom={ALARM_ZOOM}>
          <BaseLayer layer={baseLayer} styleFilter={prefs.styleFilter} />
          {located && deviceId !== null && <AlarmMarker deviceId={deviceId} plate={plate} lng={lng} lat={lat} coord={baseLayer.coord} />}
        </LiveMap>
      )}
    </div>
  );
}
