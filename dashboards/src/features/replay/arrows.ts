/**
 * Direction arrows along a track, spaced 50 px on screen whatever the zoom (console-spec §9: "arrow
 * spacing 50 per resolution", i.e. 50 × the map units of one pixel). Pure: works on the track's
 * projected pixel coordinates at the current zoom; distances count from the track's first point, so the
 * arrows do not slide when the map pans and only those inside `bounds` are returned.
 */
export const ARROW_SPACING_PX = 50;
/** Half-width and length of the chevron drawn at each arrow, px. */
export const ARROW_SIZE_PX = 5;

export interface Pixel {
  x: number;
  y: number;
}

export interface Arrow extends Pixel {
  /** Heading in radians, screen axes (0 = east, π/2 = south). */
  angle: number;
}

export interface PixelBounds {
  min: Pixel;
  max: Pixel;
}

const inside = (p: Pixel, b: PixelBounds | undefined) => !b || (p.x >= b.min.x && p.x <= b.max.x && p.y >= b.min.y && p.y <= b.max.y);

/** Points every `spacing` px along the polyline (the first one `spacing` px after its start). */
export function arrowsAlong(pixels: readonly Pixel[], spacing = ARROW_SPACING_PX, bounds?: PixelBounds, max = 5000): Arrow[] {
  const arrows: Arrow[] = [];
  let next = spacing;
  let walked = 0;
  for (let i = 1; i < pixels.length && arrows.length < max; i += 1) {
    const a = pixels[i - 1];
    const b = pixels[i];
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const length = Math.hypot(dx, dy);
    if (length === 0) continue;
    const angle = Math.atan2(dy, dx);
    while (next <= walked + length && arrows.length < max) {
      const f = (next - walked) / length;
      const at = { x: a.x + dx * f, y: a.y + dy * f };
      if (inside(at, bounds)) arrows.push({ ...at, angle });
      next += spacing;
    }
    walked += length;
  }
  return arrows;
}

/** The chevron of an arrow as two short strokes meeting at its tip: [left, tip, right]. */
export function chevron(arrow: Arrow, size = ARROW_SIZE_PX): [Pixel, Pixel, Pixel] {
  const back = (side: number): Pixel => ({
    x: arrow.x - size * Math.cos(arrow.angle + side * (Math.PI / 5)),
    y: arrow.y - size * Math.sin(arrow.angle + side * (Math.PI / 5)),
  });
  return [back(1), { x: arrow.x, y: arrow.y }, back(-1)];
}
