/**
 * The base layer a map page shows, with the offline fallback every map of the console shares (live map,
 * replay, video and map): a network layer whose tiles do not load gives way to the offline layer, with
 * a notice and a retry. `useBaseLayerFallback` picks the layer; `<BaseLayerFallbackNotice>` (BaseLayerFallbackNotice.tsx) tells it.
 */
import { useCallback, useState } from 'react';
import { BLANK_LAYER_ID, type BaseLayerDef } from './baseLayers';

export interface BaseLayerChoice {
  /** The layer to show: the chosen one, or the offline one after the chosen one's tiles failed. */
  baseLayer: BaseLayerDef;
  /** For <BaseLayer onTilesFailed>: set only while the chosen layer is shown. */
  onTilesFailed: (() => void) | undefined;
  /** The chosen layer's tiles failed (the offline layer shows instead). */
  failed: boolean;
  /** Try the chosen layer again (also after the user picks another one). */
  retry: () => void;
}

export function useBaseLayerFallback(layers: readonly BaseLayerDef[], wantedId: string): BaseLayerChoice {
  const chosen = layers.find((l) => l.id === wantedId) ?? layers[0];
  const [failedId, setFailedId] = useState<string | null>(null);
  const failed = failedId === chosen.id && chosen.id !== BLANK_LAYER_ID;
  const offline = layers.find((l) => l.id === BLANK_LAYER_ID) ?? layers[0];
  const onFailed = useCallback(() => setFailedId(chosen.id), [chosen.id]);
  const retry = useCallback(() => setFailedId(null), []);
  return { baseLayer: failed ? offline : chosen, onTilesFailed: failed ? undefined : onFailed, failed, retry };
}
