/**
 * Leader lines: a marker shifted off an overlapping one (spread.ts, up to a few rings of 20 px) gets
 * a thin line from its drawn centre back to its true position, so the eye can tell where the vehicle
 * really is. The line is a child of the marker element, so it moves with the marker's translate.
 */
export interface LeaderLine {
  /** Pixels from the drawn centre to the true position. */
  length: number;
  /** Direction of the line in degrees, CSS rotate() convention (0 = pointing right, clockwise). */
  angleDeg: number;
}

/** The line for a marker drawn `dx`, `dy` px away from its true position; null when not shifted. */
export function leaderLine(dx: number, dy: number): LeaderLine | null {
  const length = Math.hypot(dx, dy);
  if (length < 1) return null;
  return { length: Math.round(length), angleDeg: Math.round((Math.atan2(-dy || 0, -dx || 0) * 180) / Math.PI) };
}

const CLASS = 'fw-vehicle-leader';

/** Shows, moves or removes the leader line element inside a marker element. */
export function setLeaderLine(element: HTMLElement, dx: number, dy: number): void {
  const line = leaderLine(dx, dy);
  let child = element.querySelector<HTMLElement>(`:scope > .${CLASS}`);
  if (!line) {
    child?.remove();
    return;
  }
  if (!child) {
    child = document.createElement('span');
    child.className = CLASS;
    child.dataset.testid = 'leader-line';
    element.prepend(child);
  }
  const width = `${line.length}px`;
  const transform = `rotate(${line.angleDeg}deg)`;
  if (child.style.width !== width) child.style.width = width;
  if (child.style.transform !== transform) child.style.transform = transform;
}
