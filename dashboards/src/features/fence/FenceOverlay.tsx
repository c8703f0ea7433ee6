/**
 * The caller's fences drawn read-only on a <LiveMap> (live map and track replay), each with its name on
 * hover, in the map's coordinate system. Loaded once per mount, only for a user holding `fence:query`
 * (the server checks it again); a district is left out (its outline is a separate download).
 */
import L from 'leaflet';
import { useEffect } from 'react';
import { useAccess } from '../../auth/access';
import type { CoordSystem } from '../map/layers/coords';
import { useLeafletMap } from '../map/mapContext';
import { queryAll } from './api';
import { toDrawn, type Drawn, type Shape } from './geometry';

const STYLE: L.PathOptions = { color: '#722ed1', weight: 2, fillOpacity: 0.08, dashArray: '6 4', interactive: true };

function layersOf(drawn: Drawn): L.Layer[] {
  switch (drawn.shape) {
    case 'circle': return [L.circle(drawn.center, { ...STYLE, radius: drawn.radius })];
    case 'rectangle': return [L.rectangle(drawn.corners, STYLE)];
    case 'polygon': return [L.polygon(drawn.rings, STYLE)];
    case 'route': return drawn.segments.map((s) => L.polyline(s.line, { ...STYLE, fill: false, weight: 4 }));
    case 'point': return [];
  }
}

export function FenceOverlay({ coord, onCount }: { coord: CoordSystem; onCount?: (count: number) => void }) {
  const map = useLeafletMap();
  const allowed = useAccess().can('fence', 'query');
  useEffect(() => {
    if (!allowed) return undefined;
    const controller = new AbortController();
    const group = L.featureGroup().addTo(map);
    void queryAll('fence', {}, controller.signal).then((fences) => {
      if (controller.signal.aborted) return;
      let shown = 0;
      for (const fence of fences) {
        const drawn = toDrawn(fence.shape as Shape, fence.geometry, coord);
        if (!drawn) continue;
        for (const layer of layersOf(drawn)) {
          (layer as L.Path).bindTooltip(String(fence.name ?? ''), { sticky: true });
          layer.addTo(group);
          (layer as L.Path).getElement?.()?.setAttribute('data-testid', `fence-overlay-${String(fence.id)}`);
        }
        shown += 1;
      }
      onCount?.(shown);
    });
    return () => {
      controller.abort();
      map.removeLayer(group);
    };
  }, [map, coord, allowed, onCount]);
  return null;
}
