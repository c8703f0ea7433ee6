/** GET /api/system/mapConfig.json once per page; null until answered (defaults on failure). */
import { useEffect, useState } from 'react';
import { fetchMapConfig } from '../model/api';
import type { MapConfig } from '../model/types';

export function useMapConfig(): MapConfig | null {
  const [config, setConfig] = useState<MapConfig | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    void fetchMapConfig(controller.signal).then((value) => {
      if (!controller.signal.aborted) setConfig(value);
    });
    return () => controller.abort();
  }, []);
  return config;
}
