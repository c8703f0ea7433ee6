/** The selected base layer and the tile style filter (CSS filter on the tile pane only). */
import { useEffect } from 'react';
import { useLeafletMap } from '../mapContext';
import { STYLE_FILTERS, type BaseLayerDef } from './baseLayers';

export function BaseLayer({ layer, styleFilter }: { layer: BaseLayerDef; styleFilter: string }) {
  const map = useLeafletMap();

  useEffect(() => {
    const instance = layer.create();
    instance.addTo(map);
    return () => {
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
