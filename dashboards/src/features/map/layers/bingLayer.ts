/** Bing road tiles are addressed by quadkey rather than z/x/y. */
import L from 'leaflet';

export function quadKey(x: number, y: number, z: number): string {
  let key = '';
  for (let i = z; i > 0; i -= 1) {
    let digit = 0;
    const mask = 1 << (i - 1);
    if ((x & mask) !== 0) digit += 1;
    if ((y & mask) !== 0) digit += 2;
    key += String(digit);
  }
  return key;
}

const BingTileLayer = L.TileLayer.extend({
  getTileUrl(this: L.TileLayer & { _url: string; _getSubdomain(c: L.Coords): string }, coords: L.Coords): string {
    return L.Util.template(this._url, {
      s: this._getSubdomain(coords),
      q: quadKey(coords.x, coords.y, coords.z),
    });
  },
});

export function createBingLayer(url: string, options: L.TileLayerOptions): L.TileLayer {
  return new (BingTileLayer as unknown as new (url: string, options: L.TileLayerOptions) => L.TileLayer)(url, options);
}
