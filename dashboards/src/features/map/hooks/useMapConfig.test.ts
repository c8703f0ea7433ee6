import { describe, expect, test } from 'vitest';
import type { MapConfig } from '../model/types';
import { applyMapDictionary } from './useMapConfig';

const SERVER: MapConfig = {
  tiandituKey: 'k', mapCenter: { lng: 116.39, lat: 39.91 }, defaultZoom: 11, maxZoom: 18,
  baseLayers: ['blank', 'osm', 'amap'], defaultBaseLayer: 'blank',
};

describe('the ol_map_config dictionary on the map configuration', () => {
  test('its base layer, centre and zoom win; the tile keys stay the server ones', () => {
    const merged = applyMapDictionary(SERVER, { defaultBaseLayer: 'osm', mapCenter: { lng: 121.47, lat: 31.23 }, defaultZoom: 9, tiandituKey: 'x' });
    expect(merged).toEqual({ ...SERVER, defaultBaseLayer: 'osm', mapCenter: { lng: 121.47, lat: 31.23 }, defaultZoom: 9 });
  });

  test('absent or malformed values leave the server configuration', () => {
    expect(applyMapDictionary(SERVER, null)).toEqual(SERVER);
    expect(applyMapDictionary(SERVER, '{"defaultZoom": 3}')).toEqual(SERVER);
    expect(applyMapDictionary(SERVER, { defaultBaseLayer: 'nope', mapCenter: { lng: 500, lat: 1 }, defaultZoom: 40 })).toEqual(SERVER);
    expect(applyMapDictionary(SERVER, { mapCenter: { lng: '121', lat: 31 }, defaultZoom: 2.5 })).toEqual(SERVER);
  });
});
