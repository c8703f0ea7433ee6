// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { leaderLine, setLeaderLine } from './leaderLine';
import { spreadOverlaps } from './overlap';

describe('leader lines of shifted markers', () => {
  it('point from the drawn marker back to its true position', () => {
    // Drawn 20 px above its spot: the line points down (90°), 20 px long.
    expect(leaderLine(0, -20)).toEqual({ length: 20, angleDeg: 90 });
    // Drawn to the right: the line points left.
    expect(leaderLine(30, 0)).toEqual({ length: 30, angleDeg: 180 });
    expect(leaderLine(-40, 40)).toEqual({ length: 57, angleDeg: -45 });
  });

  it('an unshifted marker has none', () => {
    expect(leaderLine(0, 0)).toBeNull();
  });

  it('every marker the overlap spreading moved gets one of its length, the first keeps its place', () => {
    const offsets = spreadOverlaps([{ id: 'a', x: 100, y: 100 }, { id: 'b', x: 101, y: 100 }, { id: 'c', x: 100, y: 101 }], 20);
    expect(offsets.has('a')).toBe(false);
    for (const id of ['b', 'c']) {
      const o = offsets.get(id)!;
      const line = leaderLine(o.dx, o.dy)!;
      expect(line.length).toBeGreaterThanOrEqual(19);
    }
  });

  it('the line element is added, updated and removed inside the marker element', () => {
    const marker = document.createElement('div');
    setLeaderLine(marker, 0, -20);
    const line = marker.querySelector<HTMLElement>('.fw-vehicle-leader')!;
    expect(line.style.width).toBe('20px');
    expect(line.style.transform).toBe('rotate(90deg)');
    setLeaderLine(marker, 20, 0);
    expect(marker.querySelectorAll('.fw-vehicle-leader')).toHaveLength(1);
    expect(line.style.transform).toBe('rotate(180deg)');
    setLeaderLine(marker, 0, 0);
    expect(marker.querySelector('.fw-vehicle-leader')).toBeNull();
  });
});
