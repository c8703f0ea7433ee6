/**
 * The Leaflet map, created once per CRS (a Baidu base layer needs its own CRS, hence a new map), and
 * handed to its layers through context. Layers are components that add themselves in an effect and
 * remove themselves on cleanup (after traccar-web's MapView/MapPositions). Nothing here re-renders
 * on live updates. The map re-measures itself whenever its container changes size (sidebar
 * collapsed, layout switched, window resized): without that Leaflet leaves a grey dead strip.
 * A user who asked the system for less motion (WCAG 2.3.3) gets a map that jumps instead of gliding: no
 * animated zoom, fade or marker zoom, no inertia after a drag (the map is created again if that changes).
 */
import L from 'leaflet';
import 'leaflet/dist/leaflet.css';
import { useCallback, useState, type ReactNode } from 'react';
import { usePrefersReducedMotion } from '../../components/reducedMotion';
import { BaiduCRS } from './layers/baiduCrs';
import type { CrsId } from './layers/baseLayers';
import { toDisplay } from './layers/coords';
import type { CoordSystem } from './layers/coords';
import { watchSize } from './layers/watchSize';
import { claimView, isViewClaimed, MapContext } from './mapContext';
import { MAX_ZOOM, MIN_ZOOM } from './model/constants';

export interface LiveMapProps {
  crs: CrsId;
  coord: CoordSystem;
  center: { lng: number; lat: number };
  zoom: number;
  children?: ReactNode;
}

export function LiveMap({ crs, coord, center, zoom, children }: LiveMapProps) {
  const [map, setMap] = useState<L.Map | null>(null);
  const { lng, lat } = center;
  const motion = !usePrefersReducedMotion();

  // A callback ref with cleanup (React 19): the map lives exactly as long as its container.
  const attach = useCallback(
    (element: HTMLDivElement | null) => {
      if (!element) return undefined;
      const instance = L.map(element, {
        crs: crs === 'baidu' ? BaiduCRS : L.CRS.EPSG3857,
        center: toDisplay(lng, lat, coord),
        zoom,
        maxZoom: MAX_ZOOM,
        minZoom: MIN_ZOOM,
        zoomControl: true,
        attributionControl: true,
        zoomAnimation: motion,
        fadeAnimation: motion,
        markerZoomAnimation: motion,
        inertia: motion,
      });
      instance.on('dragstart', () => claimView(instance));
      // The zoom level on the element, for the screen tests (a selected vehicle is shown up close).
      const showZoom = () => {
        element.dataset.zoom = String(instance.getZoom());
      };
      instance.on('zoomend', showZoom);
      showZoom();
      L.control.scale({ position: 'bottomleft', imperial: false }).addTo(instance);
      recentreFromGeolocation(instance, coord);
      const stopWatching = watchSize(element, instance);
      setMap(instance);
      return () => {
        claimView(instance); // a late geolocation answer must not touch a removed map
        stopWatching();
        setMap(null);
        instance.remove();
      };
    },
    // The starting view only matters when the map is created; later changes go through layers.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [crs, motion],
  );

  return (
    <div className="fw-live-map-wrap">
      <div ref={attach} className="fw-live-map" data-testid="live-map" />
      {map && <MapContext.Provider value={map}>{children}</MapContext.Provider>}
    </div>
  );
}

/** Browser geolocation, when the user allows it, recentres a map nobody has moved yet. */
function recentreFromGeolocation(map: L.Map, coord: CoordSystem): void {
  if (typeof navigator === 'undefined' || !navigator.geolocation) return;
  navigator.geolocation.getCurrentPosition(
    (position) => {
      if (isViewClaimed(map)) return;
      map.setView(toDisplay(position.coords.longitude, position.coords.latitude, coord), map.getZoom());
    },
    () => undefined,
    { timeout: 10000, maximumAge: 600000 },
  );
}
