/**
 * Where the vehicle popup may sit: room kept free for the zoom control and scale bar (left) and the
 * shell's settings button, a fixed 48 px tab on the right edge; never wider than the map (a narrow
 * phone, long English labels) and never taller than the room between the paddings (a ~400 px map
 * pane under a table, a phone): its content scrolls instead, so its top (plate, state, time, address)
 * always shows. Pure.
 */
export const POPUP_PADDING_TOP_LEFT: [number, number] = [56, 16];
export const POPUP_PADDING_BOTTOM_RIGHT: [number, number] = [64, 40];
/** The popup's tip, offset and frame below and around its scrolling content, in px. */
const POPUP_CHROME_PX = 56;
const MIN_CONTENT_HEIGHT = 120;

/** Zoom level a selected vehicle is shown at (street level), unless the map is already closer. */
export const SELECT_ZOOM = 15;

/** Popup width limits for a map `mapWidth` px wide: at most 380 px and never wider than the free room. */
export function popupWidths(mapWidth: number): { minWidth: number; maxWidth: number } {
  const room = Math.max(160, mapWidth - POPUP_PADDING_TOP_LEFT[0] - POPUP_PADDING_BOTTOM_RIGHT[0]);
  const maxWidth = Math.min(380, room);
  return { minWidth: Math.min(280, maxWidth), maxWidth };
}

/** The height the popup's content may take in a map `mapHeight` px high before it scrolls. */
export function popupMaxHeight(mapHeight: number): number {
  const room = mapHeight - POPUP_PADDING_TOP_LEFT[1] - POPUP_PADDING_BOTTOM_RIGHT[1] - POPUP_CHROME_PX;
  return Math.max(MIN_CONTENT_HEIGHT, Math.floor(room));
}

export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/**
 * How far (dx, dy px) the popup must move to lie inside the map less its paddings; [0, 0] when it does.
 * A popup larger than the room keeps its top and left edges in view (where the plate and state are).
 */
export function fitShift(popup: Box, map: Box): [number, number] {
  const axis = (start: number, end: number, min: number, max: number): number => {
    if (start < min) return min - start;
    if (end > max) return Math.max(max - end, min - start);
    return 0;
  };
  const dx = axis(popup.left, popup.right, map.left + POPUP_PADDING_TOP_LEFT[0], map.right - POPUP_PADDING_BOTTOM_RIGHT[0]);
  const dy = axis(popup.top, popup.bottom, map.top + POPUP_PADDING_TOP_LEFT[1], map.bottom - POPUP_PADDING_BOTTOM_RIGHT[1]);
  return [Math.round(dx), Math.round(dy)];
}
