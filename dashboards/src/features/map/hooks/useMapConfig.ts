/**
 * GET /api/system/mapConfig.json once per page, completed by the `ol_map_config` system dictionary
 * when present (an administrator's base layer, centre and zoom win over the server's settings; the
 * tile keys stay the server's). null until both answered (defaults on failure).
 */
import { useEffect, useState } from 'react';
import { loadDictionary } from '../../dictionary/dictionaryCache';
import { fetchMapConfig } from '../model/api';
import type { MapConfig } from '../model/types';

function isCoordinate(value: unknown, limit: number): value is number {
  return typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= limit;
}

/** ``config`` with the dictionary's valid keys applied; anything malformed there is ignored. */
export function applyMapDictionary(config: MapConfig, dictionary: unknown): MapConfig {
  if (!dictionary || typeof dictionary !== 'object') return config;
  const entry = dictionary as { defaultBaseLayer?: unknown; mapCenter?: { lng?: unknown; lat?: unknown } | null; defaultZoom?: unknown };
  const merged: MapConfig = { ...config };
  const layers = (config.baseLayers ?? []).map((layer) => (typeof layer === 'string' ? layer : layer.id));
  if (typeof entry.defaultBaseLayer === 'string' && layers.includes(entry.defaultBaseLayer)) {
    merged.defaultBaseLayer = entry.defaultBaseLayer;
  }
  const center = entry.mapCenter;
  if (center && isCoordinate(center.lng, 180) && isCoordinate(center.lat, 90)) {
    merged.mapCenter = { lng: center.lng, lat: center.lat };
  }
  const maxZoom = config.maxZoom ?? 18;
  if (typeof entry.defaultZoom === 'number' && Number.isInteger(entry.defaultZoom) && entry.defaultZoom >= 1 && entry.defaultZoom <= maxZoom) {
    merged.defaultZoom = entry.defaultZoom;
  }
  return merged;
}

export function useMapConfig(): MapConfig | null {
  const [config, setConfig] = useState<MapConfig | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    void Promise.all([fetchMapConfig(controller.signal), loadDictionary('ol_map_config')]).then(([value, dictionary]) => {
      if (!controller.signal.aborted) setConfig(applyMapDictionary(value, dictionary));
    });
    return () => controller.abort();
  }, []);
  return config;
}
