/**
 * Baidu tiles are cut in BD-09 Mercator on a Clarke-1866-like ellipsoid, with tile (0,0) at the
 * projection origin, y growing north and 1 pixel = 1 m at zoom 18. Leaflet gets a CRS with that
 * projection and a tile layer that flips y (Baidu y = -leaflet y - 1).
 */
import L from 'leaflet';

const BaiduProjection = L.Util.extend({}, L.Projection.Mercator, {
  R: 6378206,
  R_MINOR: 6356584.314245179,
  bounds: L.bounds([-20037726.37, -12474104.17], [20037726.37, 12474104.17]),
}) as L.Projection;

export const BaiduCRS: L.CRS = L.Util.extend({}, L.CRS.Earth, {
  code: 'BAIDU:BD09MC',
  projection: BaiduProjection,
  transformation: new L.Transformation(1, 0, -1, 0),
  scale: (zoom: number) => 2 ** (zoom - 18),
  zoom: (scale: number) => Math.log(scale) / Math.LN2 + 18,
  infinite: false,
}) as L.CRS;

const BaiduTileLayer = L.TileLayer.extend({
  getTileUrl(this: L.TileLayer & { _url: string; _getSubdomain(c: L.Coords): string }, coords: L.Coords): string {
    return L.Util.template(this._url, {
      s: this._getSubdomain(coords),
      x: String(coords.x),
      y: String(-coords.y - 1),
      z: String(coords.z),
    });
  },
});

export function createBaiduLayer(url: string, options: L.TileLayerOptions): L.TileLayer {
  return new (BaiduTileLayer as unknown as new (url: string, options: L.TileLayerOptions) => L.TileLayer)(url, options);
}
