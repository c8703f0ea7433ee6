/**
 * Leaflet measures its container once; after the sidebar collapses or the layout switches it keeps
 * the old size and shows a grey dead strip. This calls invalidateSize whenever the container's size
 * changes (at most once per frame).
 */
import type L from 'leaflet';

export function watchSize(element: HTMLElement, map: Pick<L.Map, 'invalidateSize'>): () => void {
  if (typeof ResizeObserver === 'undefined') return () => undefined;
  let frame: number | null = null;
  const observer = new ResizeObserver(() => {
    if (frame !== null) return;
    frame = requestAnimationFrame(() => {
      frame = null;
      map.invalidateSize({ pan: false });
    });
  });
  observer.observe(element);
  return () => {
    observer.disconnect();
    if (frame !== null) cancelAnimationFrame(frame);
  };
}
