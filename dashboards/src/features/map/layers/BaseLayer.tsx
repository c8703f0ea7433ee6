/**
 * The selected base layer and the tile style filter (CSS filter on the tile pane only). A network
 * layer whose tiles do not load calls `onTilesFailed` (the page falls back to the offline layer).
 */
import { useEffect, useRef } from 'react';
import { useLeafletMap } from '../mapContext';
import { BLANK_LAYER_ID, STYLE_FILTERS, type BaseLayerDef } from './baseLayers';
import { watchTiles } from './tileProbe';

export interface BaseLayerProps {
  layer: BaseLayerDef;
  styleFilter: string;
  onTilesFailed?: () => void;
}

export function BaseLayer({ layer, styleFilter, onTilesFailed }: BaseLayerProps) {
  const map = useLeafletMap();
  const onFailed = useRef(onTilesFailed);
  useEffect(() => {
    onFailed.current = onTilesFailed;
  });

  useEffect(() => {
    const instance = layer.create();
    const stopWatching = layer.id === BLANK_LAYER_ID ? () => undefined : watchTiles(instance, () => onFailed.current?.());
    instance.addTo(map);
    return () => {
      stopWatching();
      map.removeLayer(instance);
    };
  }, [map, layer]);

  useEffect(() => {
    const pane = map.getPane('tilePane');
    if (!pane) return undefined;
    const filter = STYLE_FILTERS[styleFilter] ?? 'none';
    pane.style.filter = filter === 'none' ? '' : filter;
    return () => {
      pane.style.filter = '';
    };
  }, [map, styleFilter]);

  return null;
}
