/**
 * Base layers (console-spec §9): the local blank grid (default, works offline), OSM and the Chinese
 * providers tianditu, amap, arcgis, bing, baidu, google. Keys come from the map config. A tile that
 * fails to load is only a grey square: markers never depend on tiles.
 */
import L from 'leaflet';
import type { BaseLayerConfig, MapConfig } from '../model/types';
import { createBaiduLayer } from './baiduCrs';
import { createBingLayer } from './bingLayer';
import { createBlankLayer } from './blankLayer';
import type { CoordSystem } from './coords';

export type CrsId = 'epsg3857' | 'baidu';

export interface BaseLayerDef {
  id: string;
  /** i18n key in the `map` namespace, or a literal name from the config. */
  labelKey?: string;
  label?: string;
  coord: CoordSystem;
  crs: CrsId;
  create(): L.Layer;
}

export const BLANK_LAYER_ID = 'blank';
const MAX_NATIVE = 18;

function tile(url: string, options: L.TileLayerOptions = {}): L.TileLayer {
  return L.tileLayer(url, { maxZoom: 20, maxNativeZoom: MAX_NATIVE, crossOrigin: true, ...options });
}

type Factory = (config: MapConfig) => BaseLayerDef | null;

const PROVIDERS: Record<string, Factory> = {
  osm: () => ({
    id: 'osm',
    labelKey: 'layers.osm',
    coord: 'wgs84',
    crs: 'epsg3857',
    create: () =>
      tile('https://tile.openstreetmap.org/{z}/{x}/{y}.png', {
        maxNativeZoom: 19,
        attribution: '&copy; OpenStreetMap contributors',
      }),
  }),
  tianditu: (config) => {
    const key = config.tiandituKey;
    if (!key) return null;
    const wmts = (layer: string) =>
      `https://t{s}.tianditu.gov.cn/${layer}_w/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=${layer}` +
      `&STYLE=default&TILEMATRIXSET=w&FORMAT=tiles&TILEMATRIX={z}&TILEROW={y}&TILECOL={x}&tk=${encodeURIComponent(key)}`;
    const options = { subdomains: '01234567', attribution: '&copy; 天地图' };
    return {
      id: 'tianditu',
      labelKey: 'layers.tianditu',
      coord: 'wgs84',
      crs: 'epsg3857',
      create: () => L.layerGroup([tile(wmts('vec'), options), tile(wmts('cva'), options)]),
    };
  },
  amap: (config) => ({
    id: 'amap',
    labelKey: 'layers.amap',
    coord: 'gcj02',
    crs: 'epsg3857',
    create: () =>
      tile(
        'https://webrd0{s}.is.autonavi.com/appmaptile?lang=zh_cn&size=1&scale=1&style=8&x={x}&y={y}&z={z}' +
          (config.amapKey ? `&key=${encodeURIComponent(config.amapKey)}` : ''),
        { subdomains: '1234', attribution: '&copy; 高德地图' },
      ),
  }),
  arcgis: () => ({
    id: 'arcgis',
    labelKey: 'layers.arcgis',
    coord: 'wgs84',
    crs: 'epsg3857',
    create: () =>
      tile('https://server.arcgisonline.com/ArcGIS/rest/services/World_Street_Map/MapServer/tile/{z}/{y}/{x}', {
        attribution: '&copy; Esri',
      }),
  }),
  bing: (config) => ({
    id: 'bing',
    labelKey: 'layers.bing',
    coord: 'wgs84',
    crs: 'epsg3857',
    create: () =>
      createBingLayer(
        'https://ecn.t{s}.tiles.virtualearth.net/tiles/r{q}.jpeg?g=1&mkt=zh-CN&shading=hill' +
          (config.bingKey ? `&key=${encodeURIComponent(config.bingKey)}` : ''),
        { subdomains: '0123', maxZoom: 20, maxNativeZoom: MAX_NATIVE, attribution: '&copy; Microsoft Bing' },
      ),
  }),
  baidu: () => ({
    id: 'baidu',
    labelKey: 'layers.baidu',
    coord: 'bd09',
    crs: 'baidu',
    create: () =>
      createBaiduLayer('https://maponline{s}.bdimg.com/tile/?qt=vtile&x={x}&y={y}&z={z}&styles=pl&scaler=1&udt=20240101', {
        subdomains: '0123',
        maxZoom: 20,
        maxNativeZoom: 19,
        minNativeZoom: 3,
        attribution: '&copy; 百度地图',
      }),
  }),
  google: () => ({
    id: 'google',
    labelKey: 'layers.google',
    coord: 'gcj02',
    crs: 'epsg3857',
    create: () =>
      tile('https://mt{s}.google.com/vt/lyrs=m&hl=zh-CN&gl=cn&x={x}&y={y}&z={z}', {
        subdomains: '0123',
        attribution: '&copy; Google',
      }),
  }),
};

export const PROVIDER_IDS = Object.keys(PROVIDERS);

function blankLayer(): BaseLayerDef {
  return { id: BLANK_LAYER_ID, labelKey: 'layers.blank', coord: 'wgs84', crs: 'epsg3857', create: createBlankLayer };
}

function fromConfig(entry: BaseLayerConfig, config: MapConfig, index: number): BaseLayerDef | null {
  const provider = entry.provider ?? entry.id;
  if (entry.url) {
    const id = entry.id ?? `custom-${index}`;
    const url = entry.url;
    const base = provider ? PROVIDERS[provider]?.(config) : null;
    return {
      id,
      label: entry.name ?? id,
      coord: base?.coord ?? 'wgs84',
      crs: base?.crs ?? 'epsg3857',
      create: () =>
        tile(url, {
          subdomains: entry.subdomains ?? 'abc',
          attribution: entry.attribution ?? '',
          maxNativeZoom: entry.maxZoom ?? MAX_NATIVE,
        }),
    };
  }
  const def = provider ? PROVIDERS[provider]?.(config) : null;
  return def && entry.name ? { ...def, label: entry.name, labelKey: undefined } : (def ?? null);
}

/** The selectable layers: blank first, then what the config lists (or every provider it has keys for). */
export function availableBaseLayers(config: MapConfig): BaseLayerDef[] {
  const layers = [blankLayer()];
  const seen = new Set([BLANK_LAYER_ID]);
  const entries: (string | BaseLayerConfig)[] = config.baseLayers?.length ? config.baseLayers : PROVIDER_IDS;
  entries.forEach((entry, index) => {
    const def = typeof entry === 'string' ? (PROVIDERS[entry]?.(config) ?? null) : fromConfig(entry, config, index);
    if (def && !seen.has(def.id)) {
      seen.add(def.id);
      layers.push(def);
    }
  });
  return layers;
}

/** Map style filters (console-spec §9): CSS filters applied to the tile pane only. */
export const STYLE_FILTERS: Record<string, string> = {
  none: 'none',
  invert: 'invert(1) hue-rotate(180deg)',
  sepia: 'sepia(0.85)',
  grayscale: 'grayscale(1)',
  dark: 'invert(1) hue-rotate(180deg) brightness(0.85) contrast(0.9) grayscale(0.4)',
  midnight: 'invert(0.92) hue-rotate(200deg) saturate(0.6) brightness(0.75)',
};

export const STYLE_FILTER_IDS = Object.keys(STYLE_FILTERS);
