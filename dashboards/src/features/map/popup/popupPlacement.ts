/**
 * Where the vehicle popup may sit: room kept free for the zoom control and scale bar (left) and the
 * shell's settings button, a fixed 48 px tab on the right edge; never wider than the map (a narrow
 * phone, long English labels). Pure.
 */
export const POPUP_PADDING_TOP_LEFT: [number, number] = [56, 16];
export const POPUP_PADDING_BOTTOM_RIGHT: [number, number] = [64, 40];

/** Popup width limits for a map `mapWidth` px wide: at most 380 px and never wider than the free room. */
export function popupWidths(mapWidth: number): { minWidth: number; maxWidth: number } {
  const room = Math.max(160, mapWidth - POPUP_PADDING_TOP_LEFT[0] - POPUP_PADDING_BOTTOM_RIGHT[0]);
  const maxWidth = Math.min(380, room);
  return { minWidth: Math.min(280, maxWidth), maxWidth };
}
