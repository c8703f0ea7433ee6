/**
 * Stop labels that do not collide: at the zoom a track is fitted to, a day's stops ("停 12分") sit on top
 * of each other. Greedy over the labels in priority order (the longest stop first): a label is shown
 * when its box overlaps none shown before; the others show as a dot until the map is zoomed in. Pure.
 */
export interface LabelBox<Id> {
  id: Id;
  left: number;
  top: number;
  right: number;
  bottom: number;
  /** Higher first (a stop's duration). */
  priority: number;
}

/** The ids of the labels to show; `gapPx` is the free space kept between two shown labels. */
export function visibleLabels<Id>(boxes: readonly LabelBox<Id>[], gapPx = 2): Set<Id> {
  const shown: LabelBox<Id>[] = [];
  const ordered = [...boxes].sort((a, b) => b.priority - a.priority);
  for (const box of ordered) {
    const collides = shown.some((other) =>
      box.left < other.right + gapPx && other.left < box.right + gapPx && box.top < other.bottom + gapPx && other.top < box.bottom + gapPx);
    if (!collides) shown.push(box);
  }
  return new Set(shown.map((box) => box.id));
}
