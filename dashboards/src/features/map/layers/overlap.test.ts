import { describe, expect, it } from 'vitest';
import { spreadOverlaps, type ScreenPoint } from './overlap';

const dist = (a: { x: number; y: number }, b: { x: number; y: number }) => Math.hypot(a.x - b.x, a.y - b.y);

function placed(points: ScreenPoint<string>[], min: number) {
  const offsets = spreadOverlaps(points, min);
  return points.map((p) => ({ x: p.x + (offsets.get(p.id)?.dx ?? 0), y: p.y + (offsets.get(p.id)?.dy ?? 0) }));
}

describe('marker overlap shifting (20 px rule)', () => {
  it('leaves markers 20 px or more apart where they are', () => {
    const offsets = spreadOverlaps(
      [
        { id: 'a', x: 100, y: 100 },
        { id: 'b', x: 120, y: 100 },
        { id: 'c', x: 100, y: 130 },
      ],
      20,
    );
    expect(offsets.size).toBe(0);
  });

  it('shifts a marker within 20 px of another by at least the missing distance', () => {
    const points = [
      { id: 'a', x: 100, y: 100 },
      { id: 'b', x: 110, y: 100 },
    ];
    const offsets = spreadOverlaps(points, 20);
    expect(offsets.has('a')).toBe(false);
    expect(offsets.has('b')).toBe(true);
    const [a, b] = placed(points, 20);
    expect(dist(a, b)).toBeGreaterThanOrEqual(19.5);
  });

  it('spreads many markers on the same spot so none stay within 20 px', () => {
    const points = Array.from({ length: 12 }, (_, i) => ({ id: `v${i}`, x: 300, y: 300 }));
    const result = placed(points, 20);
    for (let i = 0; i < result.length; i += 1) {
      for (let j = i + 1; j < result.length; j += 1) {
        expect(dist(result[i], result[j])).toBeGreaterThanOrEqual(19);
      }
    }
  });

  it('is deterministic for the same input', () => {
    const points = [
      { id: 'a', x: 0, y: 0 },
      { id: 'b', x: 3, y: 4 },
      { id: 'c', x: 5, y: 0 },
    ];
    expect([...spreadOverlaps(points, 20)]).toEqual([...spreadOverlaps(points, 20)]);
  });

  it('uses the smaller 5 px threshold for clusters', () => {
    const points = [
      { id: 'a', x: 0, y: 0 },
      { id: 'b', x: 6, y: 0 },
      { id: 'c', x: 8, y: 0 },
    ];
    const offsets = spreadOverlaps(points, 5);
    expect(offsets.has('b')).toBe(false);
    expect(offsets.has('c')).toBe(true);
  });
});
