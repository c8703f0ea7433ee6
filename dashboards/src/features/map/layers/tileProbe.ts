/**
 * Does a tiled base layer actually load? A machine without internet (or a blocked tile host) gets
 * nothing but errors or silence; the map then falls back to the offline layer with a notice rather
 * than show an empty grey grid. Pure verdict + a small watcher on Leaflet's tile events.
 */
import L from 'leaflet';

export const TILE_ERRORS_TO_FAIL = 3;
export const TILE_SILENCE_MS = 8000;

export type TileVerdict = 'pending' | 'ok' | 'failed';

/** One tile loaded: fine. Only errors (some), or silence since the first request: failed. */
export function tileVerdict(loaded: number, errors: number, msSinceFirstRequest: number | null): TileVerdict {
  if (loaded > 0) return 'ok';
  if (errors >= TILE_ERRORS_TO_FAIL) return 'failed';
  if (msSinceFirstRequest !== null && msSinceFirstRequest >= TILE_SILENCE_MS) return 'failed';
  return 'pending';
}

function tileLayersIn(layer: L.Layer): L.GridLayer[] {
  if (layer instanceof L.GridLayer) return [layer];
  if (layer instanceof L.LayerGroup) return layer.getLayers().flatMap(tileLayersIn);
  return [];
}

/** Calls `onFailed` once if the layer's tiles do not load; returns the stop function. */
export function watchTiles(layer: L.Layer, onFailed: () => void, now: () => number = Date.now): () => void {
  let loaded = 0;
  let errors = 0;
  let firstRequest: number | null = null;
  let done = false;
  const check = () => {
    if (done) return;
    const verdict = tileVerdict(loaded, errors, firstRequest === null ? null : now() - firstRequest);
    if (verdict === 'pending') return;
    done = true;
    stop();
    if (verdict === 'failed') onFailed();
  };
  const onStart = () => {
    if (firstRequest === null) firstRequest = now();
  };
  const onLoad = () => {
    loaded += 1;
    check();
  };
  const onError = () => {
    errors += 1;
    check();
  };
  const layers = tileLayersIn(layer);
  for (const l of layers) l.on('tileloadstart', onStart).on('tileload', onLoad).on('tileerror', onError);
  const timer = setInterval(check, 1000);
  function stop() {
    clearInterval(timer);
    for (const l of layers) l.off('tileloadstart', onStart).off('tileload', onLoad).off('tileerror', onError);
  }
  return () => {
    done = true;
    stop();
  };
}
