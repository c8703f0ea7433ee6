/**
 * Overlapping markers: a marker closer than `minDistancePx` to one already placed is moved to the
 * first free slot on rings around its spot (radius minDistance, 2×minDistance, …). Screen pixels in,
 * pixel offsets out; a spatial hash keeps it linear for the few thousand markers in view.
 */
export interface ScreenPoint<Id> {
  id: Id;
  x: number;
  y: number;
}

export interface Offset {
  dx: number;
  dy: number;
}

const MAX_RINGS = 12;

export function spreadOverlaps<Id>(points: readonly ScreenPoint<Id>[], minDistancePx: number): Map<Id, Offset> {
  const offsets = new Map<Id, Offset>();
  if (minDistancePx <= 0) return offsets;
  const cell = minDistancePx;
  const grid = new Map<string, { x: number; y: number }[]>();
  const cellKey = (cx: number, cy: number) => `${cx}:${cy}`;
  const minSq = minDistancePx * minDistancePx - 1e-6;

  const isFree = (x: number, y: number): boolean => {
    const cx = Math.floor(x / cell);
    const cy = Math.floor(y / cell);
    for (let i = cx - 1; i <= cx + 1; i += 1) {
      for (let j = cy - 1; j <= cy + 1; j += 1) {
        for (const p of grid.get(cellKey(i, j)) ?? []) {
          const ddx = p.x - x;
          const ddy = p.y - y;
          if (ddx * ddx + ddy * ddy < minSq) return false;
        }
      }
    }
    return true;
  };
  const place = (x: number, y: number) => {
    const key = cellKey(Math.floor(x / cell), Math.floor(y / cell));
    const list = grid.get(key);
    if (list) list.push({ x, y });
    else grid.set(key, [{ x, y }]);
  };

  for (const point of points) {
    let x = point.x;
    let y = point.y;
    if (!isFree(x, y)) {
      let found = false;
      for (let ring = 1; ring <= MAX_RINGS && !found; ring += 1) {
        const radius = minDistancePx * ring;
        const slots = 6 * ring;
        for (let s = 0; s < slots; s += 1) {
          const angle = -Math.PI / 2 + (2 * Math.PI * s) / slots;
          const cx = point.x + radius * Math.cos(angle);
          const cy = point.y + radius * Math.sin(angle);
          if (isFree(cx, cy)) {
            x = cx;
            y = cy;
            found = true;
            break;
          }
        }
      }
      offsets.set(point.id, { dx: Math.round(x - point.x), dy: Math.round(y - point.y) });
    }
    place(x, y);
  }
  return offsets;
}
