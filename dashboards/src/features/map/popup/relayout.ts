import type L from 'leaflet';

/**
 * Lays an open popup out again (its size limits, then its place) for content React changed in place. Leaflet's
 * `update()` would also take the content out of the popup and put it back: done on every render of the popup (each
 * report re-renders it), that detached the button under a click that was half done (mouse down before, up after), and the
 * click was lost (an operator's 报警设置 or 拍照 did nothing). Leaflet 1.9's own steps of `update()` without the
 * content's; `update()` where they are missing.
 */
export function relayout(popup: L.Popup): void {
  const steps = popup as unknown as {
    _map?: L.Map | null;
    _updateLayout?: () => void;
    _updatePosition?: () => void;
    _adjustPan?: () => void;
  };
  if (!steps._map) return;
  if (typeof steps._updateLayout !== 'function' || typeof steps._updatePosition !== 'function') {
    popup.update();
    return;
  }
  steps._updateLayout();
  steps._updatePosition();
  steps._adjustPan?.(); // Leaflet's own check: only with options.autoPan
}
