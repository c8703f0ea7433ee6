/** The Leaflet map handed from <LiveMap> to its layer components. */
import type L from 'leaflet';
import { createContext, useContext } from 'react';

export const MapContext = createContext<L.Map | null>(null);

export function useLeafletMap(): L.Map {
  const map = useContext(MapContext);
  if (!map) throw new Error('useLeafletMap outside <LiveMap>');
  return map;
}

/** Maps whose view was set on purpose (fit, user pan); geolocation then no longer recentres them. */
const claimedViews = new WeakSet<L.Map>();

export function claimView(map: L.Map): void {
  claimedViews.add(map);
}

export function isViewClaimed(map: L.Map): boolean {
  return claimedViews.has(map);
}

/** Whether `map` moves smoothly: a pan asked of it animates only when the map does (LiveMap: not for a user who
 * asked for less motion). */
export function mapMotion(map: L.Map): boolean {
  return map.options.zoomAnimation !== false;
}
