/**
 * The map of the fence and label point forms: the configured base layer, the drawing tools of the shape,
 * or a province / city / district's outline from `GET /api/common/geoMapData/{id}.json` (platform-spec §7).
 * `data-geometry` holds the WGS-84 geometry a save would send (for the screen tests).
 */
import L from 'leaflet';
import { useEffect, useMemo, useState } from 'react';
import '../map/map.css';
import './fence.css';
import { LiveMap } from '../map/LiveMap';
import { useMapConfig } from '../map/hooks/useMapConfig';
import { BaseLayer } from '../map/layers/BaseLayer';
import { availableBaseLayers, BLANK_LAYER_ID } from '../map/layers/baseLayers';
import { toDisplay, type CoordSystem } from '../map/layers/coords';
import { claimView, useLeafletMap } from '../map/mapContext';
import { DEFAULT_CENTER } from '../map/model/constants';
import { readPrefs } from '../map/model/prefs';
import { fetchGeoMapData, outlineOf } from './api';
import { DrawLayer } from './DrawLayer';
import { fromDrawn, toDrawn, type Drawn, type Shape } from './geometry';

export const FENCE_MAP_HEIGHT = 420;

function DistrictOutline({ districtId, coord }: { districtId: string | number; coord: CoordSystem }) {
  const map = useLeafletMap();
  useEffect(() => {
    const controller = new AbortController();
    let layer: L.GeoJSON | null = null;
    void fetchGeoMapData(districtId, controller.signal).then((reply) => {
      if (reply.code !== 0 || !reply.data) return; // platform-spec §8: an unknown district answers null
      const { data, centerLat, centerLng } = reply.data;
      claimView(map);
      const outline = outlineOf(data);
      if (outline) {
        layer = L.geoJSON(outline, {
          style: { color: '#1677ff', weight: 2, fillOpacity: 0.1 },
          coordsToLatLng: (c: number[]) => L.latLng(...toDisplay(c[0], c[1], coord)),
        }).addTo(map);
        const bounds = layer.getBounds();
        if (bounds.isValid()) map.fitBounds(bounds);
      } else if (Number.isFinite(centerLat) && Number.isFinite(centerLng)) {
        map.setView(toDisplay(centerLng, centerLat, coord), 9);
      }
    });
    return () => {
      controller.abort();
      if (layer) map.removeLayer(layer);
    };
  }, [map, districtId, coord]);
  return null;
}


export interface FenceMapProps {
  shape: Shape;
  /** What is drawn (display system); null: nothing yet, or the stored `geometry` untouched. */
  drawn: Drawn | null;
  /** The stored geometry (WGS-84) the form opened with, drawn until the user draws anew. */
  geometry?: unknown;
  onChange: (drawn: Drawn | null, coord: CoordSystem) => void;
  districtId?: string | number | null;
  readOnly?: boolean;
  /** Tells the form which system the map draws in (to convert stored geometry before the first draw). */
  onCoord?: (coord: CoordSystem) => void;
}

export function FenceMap({ shape, drawn, geometry: stored, onChange, districtId, readOnly, onCoord }: FenceMapProps) {
  const config = useMapConfig();
  const [prefs] = useState(readPrefs);
  const layers = useMemo(() => availableBaseLayers(config ?? {}), [config]);
  const baseLayer = layers.find((l) => l.id === (prefs.baseLayer ?? config?.defaultBaseLayer ?? BLANK_LAYER_ID)) ?? layers[0];
  const coord = baseLayer?.coord;
  useEffect(() => {
    if (coord) onCoord?.(coord);
  }, [coord, onCoord]);
  const shown = drawn ?? (coord && stored ? toDrawn(shape, stored, coord) : null);
  const geometry = shown && coord ? JSON.stringify(fromDrawn(shown, coord)) : '';
  return (
    <div style={{ height: FENCE_MAP_HEIGHT, display: 'flex' }} data-testid="fence-map" data-shape={shape} data-geometry={geometry}
      data-coord={coord ?? ''}>
      {config && baseLayer && (
        <LiveMap key={baseLayer.crs} crs={baseLayer.crs} coord={baseLayer.coord} center={config.mapCenter ?? DEFAULT_CENTER}
          zoom={config.defaultZoom ?? 12}>
          <BaseLayer layer={baseLayer} styleFilter={prefs.styleFilter} />
          {shape === 'district'
            ? districtId ? <DistrictOutline districtId={districtId} coord={baseLayer.coord} /> : null
            : <DrawLayer key={shape} shape={shape} drawn={shown} readOnly={readOnly} onChange={(d) => onChange(d, baseLayer.coord)} />}
        </LiveMap>
      )}
    </div>
  );
}
