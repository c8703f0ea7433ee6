/**
 * Fence and label point geometry between the API and the map. The API stores WGS-84 [lng, lat] pairs
 * (warehouse/migrations/0040_fences.sql); the map draws in its base layer's system (GCJ-02 / BD-09 on
 * Chinese tiles, features/map/layers/coords.ts). The conversion happens here and only here: `toDrawn`
 * when a stored geometry is put on the map, `fromDrawn` when a drawn one is saved.
 */
import { toDisplay, type CoordSystem } from '../map/layers/coords';

export type LngLat = [number, number];
/** A point as Leaflet draws it: [lat, lng] in the base layer's system. */
export type LatLng = [number, number];

export interface RouteSegment {
  points: LngLat[];
  /** Corridor width, metres. */
  width: number;
  /** Shortest / longest time the segment may take, seconds (absent: not checked). */
  minTime?: number | null;
  maxTime?: number | null;
  speedLimit?: number | null;
  overspeedDuration?: number | null;
}

/** The stored geometry by shape (0040_fences.sql). */
export type Geometry =
  | { center: LngLat; radius: number }
  | { topLeft: LngLat; bottomRight: LngLat }
  | { rings: LngLat[][] }
  | { segments: RouteSegment[] }
  | { districtId: number | string }
  | { point: LngLat };

export type Shape = 'circle' | 'rectangle' | 'polygon' | 'route' | 'district' | 'point';

/** The geometry as drawn on the map (display system). Route segments keep their rules beside the line. */
export type Drawn =
  | { shape: 'circle'; center: LatLng; radius: number }
  | { shape: 'rectangle'; corners: [LatLng, LatLng] }
  | { shape: 'polygon'; rings: LatLng[][] }
  | { shape: 'route'; segments: (Omit<RouteSegment, 'points'> & { line: LatLng[] })[] }
  | { shape: 'point'; at: LatLng };

/** Degrees of longitude / latitude under which a converted point is the drawn one (about 1 cm). */
const EPSILON = 1e-9;

/**
 * WGS-84 [lng, lat] of a point drawn at display [lat, lng]: the inverse of `toDisplay`, found by fixed-point
 * iteration (the offset varies slowly, so a few rounds reach well under a centimetre).
 */
export function fromDisplay(lat: number, lng: number, system: CoordSystem): LngLat {
  if (system === 'wgs84') return [lng, lat];
  let guess: LngLat = [lng, lat];
  for (let round = 0; round < 30; round += 1) {
    const [shownLat, shownLng] = toDisplay(guess[0], guess[1], system);
    const dLng = shownLng - lng;
    const dLat = shownLat - lat;
    guess = [guess[0] - dLng, guess[1] - dLat];
    if (Math.abs(dLng) < EPSILON && Math.abs(dLat) < EPSILON) break;
  }
  return guess;
}

const round7 = (value: number) => Math.round(value * 1e7) / 1e7;

function toApi(point: LatLng, system: CoordSystem): LngLat {
  const [lng, lat] = fromDisplay(point[0], point[1], system);
  return [round7(lng), round7(lat)];
}

function toMap(point: LngLat, system: CoordSystem): LatLng {
  return toDisplay(point[0], point[1], system);
}

/** A polygon ring without the closing point Leaflet leaves out and GeoJSON puts in. */
function openRing(ring: LatLng[]): LatLng[] {
  if (ring.length > 1) {
    const [first, last] = [ring[0], ring[ring.length - 1]];
    if (first[0] === last[0] && first[1] === last[1]) return ring.slice(0, -1);
  }
  return ring;
}

/** The stored geometry of what was drawn, WGS-84. */
export function fromDrawn(drawn: Drawn, system: CoordSystem): Geometry {
  switch (drawn.shape) {
    case 'circle':
      return { center: toApi(drawn.center, system), radius: Math.round(drawn.radius) };
    case 'rectangle': {
      const [a, b] = drawn.corners;
      // Top left = the northern latitude with the western longitude (China: no antimeridian).
      const north = Math.max(a[0], b[0]);
      const south = Math.min(a[0], b[0]);
      const west = Math.min(a[1], b[1]);
      const east = Math.max(a[1], b[1]);
      return { topLeft: toApi([north, west], system), bottomRight: toApi([south, east], system) };
    }
    case 'polygon':
      return { rings: drawn.rings.map((ring) => openRing(ring).map((p) => toApi(p, system))) };
    case 'route':
      return {
        segments: drawn.segments.map(({ line, ...rules }) => ({ ...rules, points: line.map((p) => toApi(p, system)) })),
      };
    case 'point':
      return { point: toApi(drawn.at, system) };
  }
}

/** What to draw for a stored geometry, or null for a district (drawn from its outline) or a malformed one. */
export function toDrawn(shape: Shape, geometry: unknown, system: CoordSystem): Drawn | null {
  const g = (geometry ?? {}) as Record<string, unknown>;
  const isPair = (v: unknown): v is LngLat => Array.isArray(v) && v.length === 2 && v.every((n) => typeof n === 'number');
  switch (shape) {
    case 'circle':
      return isPair(g.center) && typeof g.radius === 'number'
        ? { shape, center: toMap(g.center, system), radius: g.radius } : null;
    case 'rectangle':
      return isPair(g.topLeft) && isPair(g.bottomRight)
        ? { shape, corners: [toMap(g.topLeft, system), toMap(g.bottomRight, system)] } : null;
    case 'polygon':
      return Array.isArray(g.rings) && g.rings.length > 0 && g.rings.every((r) => Array.isArray(r) && r.every(isPair))
        ? { shape, rings: (g.rings as LngLat[][]).map((ring) => ring.map((p) => toMap(p, system))) } : null;
    case 'route':
      return Array.isArray(g.segments) && g.segments.length > 0
        ? {
          shape,
          segments: (g.segments as RouteSegment[]).map(({ points, ...rules }) => ({
            ...rules, line: (points ?? []).map((p) => toMap(p, system)),
          })),
        }
        : null;
    case 'point':
      return isPair(g.point) ? { shape, at: toMap(g.point, system) } : null;
    default:
      return null;
  }
}

/**
 * Splits a drawn route line into segments at the given vertex indices (a vertex ends one segment and starts
 * the next), each segment with the default rules; the route wizard's step 2 then sets each one's rules.
 */
export function splitRoute(line: LatLng[], breaks: number[], width: number): { line: LatLng[]; width: number }[] {
  const cuts = [...new Set(breaks)].filter((i) => i > 0 && i < line.length - 1).sort((a, b) => a - b);
  const bounds = [0, ...cuts, line.length - 1];
  const segments: { line: LatLng[]; width: number }[] = [];
  for (let i = 0; i + 1 < bounds.length; i += 1) segments.push({ line: line.slice(bounds[i], bounds[i + 1] + 1), width });
  return segments;
}

type Rules = Omit<RouteSegment, 'points'>;
type RouteDrawn = Extract<Drawn, { shape: 'route' }>;

/** The route with one segment's rule changed (a cleared number is no rule: null; the width stays required). */
export function withSegmentRule(route: RouteDrawn, index: number, rule: keyof Rules, value: number | null): RouteDrawn {
  return {
    ...route,
    segments: route.segments.map((segment, i) => (i === index ? { ...segment, [rule]: value } : segment)),
  };
}
