/**
 * Overlap shifting on what is on screen: single markers closer than 20 px are moved apart, cluster
 * icons closer than 5 px too (the spec's "min distance 5"). Offsets are CSS `translate`, which
 * composes with Leaflet's own positioning transform; unchanged offsets are not rewritten. A shifted
 * vehicle marker gets a leader line to its true position (leaderLine.ts). Plates are hidden while
 * more than LABEL_LIMIT markers are on screen.
 */
import L from 'leaflet';
import { CLUSTER_MIN_DISTANCE_PX, MARKER_OVERLAP_PX } from '../model/constants';
import { setLeaderLine } from './leaderLine';
import { spreadOverlaps, type ScreenPoint } from './overlap';

interface Shown {
  marker: L.Marker;
  element: HTMLElement;
}

const MARGIN_PX = 50;
/** Above this many markers on screen the plates are hidden: unreadable anyway, and costly to paint. */
export const LABEL_LIMIT = 150;

function setTranslate(element: HTMLElement, dx: number, dy: number): void {
  const value = dx || dy ? `${dx}px ${dy}px` : '';
  if (element.style.translate !== value) element.style.translate = value;
}

export function spreadVisible(map: L.Map, group: L.MarkerClusterGroup, entries: Iterable<Shown>): void {
  const size = map.getSize();
  const inView = (p: L.Point) =>
    p.x >= -MARGIN_PX && p.y >= -MARGIN_PX && p.x <= size.x + MARGIN_PX && p.y <= size.y + MARGIN_PX;

  const markers: ScreenPoint<HTMLElement>[] = [];
  for (const { marker, element } of entries) {
    const outer = marker.getElement();
    if (!outer || !outer.isConnected) continue;
    const p = map.latLngToContainerPoint(marker.getLatLng());
    if (inView(p)) markers.push({ id: element, x: p.x, y: p.y });
  }
  map.getContainer().classList.toggle('fw-many-markers', markers.length > LABEL_LIMIT);
  const offsets = spreadOverlaps(markers, MARKER_OVERLAP_PX);
  for (const m of markers) {
    const o = offsets.get(m.id);
    setTranslate(m.id, o?.dx ?? 0, o?.dy ?? 0);
    setLeaderLine(m.id, o?.dx ?? 0, o?.dy ?? 0);
  }

  // markercluster has no public list of the cluster icons on screen; its feature group holds them.
  const featureGroup = (group as unknown as { _featureGroup?: L.FeatureGroup })._featureGroup;
  const clusters: ScreenPoint<HTMLElement>[] = [];
  featureGroup?.eachLayer((layer) => {
    if (!(layer instanceof L.MarkerCluster)) return;
    const el = layer.getElement();
    if (!el) return;
    const p = map.latLngToContainerPoint(layer.getLatLng());
    if (inView(p)) clusters.push({ id: el, x: p.x, y: p.y });
  });
  const clusterOffsets = spreadOverlaps(clusters, CLUSTER_MIN_DISTANCE_PX);
  for (const c of clusters) {
    const o = clusterOffsets.get(c.id);
    setTranslate(c.id, o?.dx ?? 0, o?.dy ?? 0);
  }
}
