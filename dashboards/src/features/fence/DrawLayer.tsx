/**
 * The drawing tools on a <LiveMap> (leaflet-geoman): the tool of the chosen shape only, the drawn shape
 * editable (drag vertices, resize the circle), one area at a time (a new one replaces it); a route is one
 * line per segment, so drawing another line adds a segment. Reports what is drawn in the map's own system;
 * `geometry.ts` converts it once to WGS-84.
 */
import L from 'leaflet';
import '@geoman-io/leaflet-geoman-free';
import '@geoman-io/leaflet-geoman-free/dist/leaflet-geoman.css';
import { useEffect, useRef } from 'react';
import { useLeafletMap, claimView } from '../map/mapContext';
import { DEFAULT_CORRIDOR_M } from './fenceForm';
import type { Drawn, LatLng, Shape } from './geometry';

const TOOL: Partial<Record<Shape, string>> = { circle: 'Circle', rectangle: 'Rectangle', polygon: 'Polygon', route: 'Line', point: 'Marker' };
const STYLE: L.PathOptions = { color: '#1677ff', weight: 2, fillOpacity: 0.15 };

const pair = (p: L.LatLng): LatLng => [p.lat, p.lng];

/** The Leaflet layers of a drawn shape. */
function layersOf(drawn: Drawn): L.Layer[] {
  switch (drawn.shape) {
    case 'circle': return [L.circle(drawn.center, { ...STYLE, radius: drawn.radius })];
    case 'rectangle': return [L.rectangle(drawn.corners, STYLE)];
    case 'polygon': return [L.polygon(drawn.rings, STYLE)];
    case 'route': return drawn.segments.map((s) => L.polyline(s.line, { ...STYLE, weight: 4 }));
    case 'point': return [L.marker(drawn.at)];
  }
}

/** What the layers on the map draw, with the route segments' rules kept from `previous` by position. */
function readLayers(shape: Shape, layers: L.Layer[], previous: Drawn | null): Drawn | null {
  const last = layers[layers.length - 1];
  if (!last) return null;
  switch (shape) {
    case 'circle': return last instanceof L.Circle ? { shape, center: pair(last.getLatLng()), radius: last.getRadius() } : null;
    case 'rectangle': {
      if (!(last instanceof L.Rectangle)) return null;
      const b = last.getBounds();
      return { shape, corners: [[b.getNorth(), b.getWest()], [b.getSouth(), b.getEast()]] };
    }
    case 'polygon': {
      if (!(last instanceof L.Polygon)) return null;
      const rings = last.getLatLngs() as L.LatLng[][];
      return { shape, rings: rings.map((ring) => ring.map(pair)) };
    }
    case 'route': {
      const rules = previous?.shape === 'route' ? previous.segments : [];
      const lines = layers.filter((l): l is L.Polyline => l instanceof L.Polyline && !(l instanceof L.Polygon));
      return {
        shape,
        segments: lines.map((line, i) => ({
          ...(rules[i] ?? { width: DEFAULT_CORRIDOR_M }),
          line: (line.getLatLngs() as L.LatLng[]).map(pair),
        })),
      };
    }
    case 'point': return last instanceof L.Marker ? { shape, at: pair(last.getLatLng()) } : null;
    default: return null;
  }
}

export interface DrawLayerProps {
  shape: Shape;
  /** What is drawn now (display system); changes from outside (a segment's width) are kept, not redrawn. */
  drawn: Drawn | null;
  onChange: (drawn: Drawn | null) => void;
  readOnly?: boolean;
}

export function DrawLayer({ shape, drawn, onChange, readOnly }: DrawLayerProps) {
  const map = useLeafletMap();
  const latest = useRef({ onChange, drawn });
  useEffect(() => {
    latest.current = { onChange, drawn };
  });

  useEffect(() => {
    const group = L.featureGroup().addTo(map);
    const report = () => {
      const now = readLayers(shape, group.getLayers(), latest.current.drawn);
      latest.current.drawn = now;
      latest.current.onChange(now);
    };
    const watch = (layer: L.Layer) => {
      layer.on('pm:edit pm:dragend', report);
      if (!readOnly) (layer as L.Path).pm?.enable({ allowSelfIntersection: false });
    };
    const start = latest.current.drawn;
    if (start && start.shape === shape) {
      layersOf(start).forEach((layer) => {
        group.addLayer(layer);
        watch(layer);
      });
      const bounds = group.getBounds();
      if (bounds.isValid()) {
        claimView(map);
        map.fitBounds(bounds, { maxZoom: 16, padding: [20, 20] });
      }
    }
    const tool = TOOL[shape];
    if (!readOnly && tool) {
      map.pm.setGlobalOptions({ pathOptions: STYLE, snappable: true });
      map.pm.addControls({
        position: 'topleft', drawMarker: tool === 'Marker', drawCircle: tool === 'Circle', drawRectangle: tool === 'Rectangle',
        drawPolygon: tool === 'Polygon', drawPolyline: tool === 'Line', drawCircleMarker: false, drawText: false,
        editMode: false, dragMode: false, cutPolygon: false, removalMode: true, rotateMode: false,
      });
    }
    const onCreate = (event: { layer: L.Layer }) => {
      map.removeLayer(event.layer);
      if (shape !== 'route') group.clearLayers(); // one area at a time; a route gains a segment
      group.addLayer(event.layer);
      watch(event.layer);
      report();
    };
    const onRemove = (event: { layer: L.Layer }) => {
      group.removeLayer(event.layer);
      report();
    };
    map.on('pm:create', onCreate);
    map.on('pm:remove', onRemove);
    return () => {
      map.off('pm:create', onCreate);
      map.off('pm:remove', onRemove);
      if (map.pm.controlsVisible()) map.pm.removeControls();
      map.pm.disableDraw();
      map.removeLayer(group);
    };
  }, [map, shape, readOnly]);

  return null;
}
