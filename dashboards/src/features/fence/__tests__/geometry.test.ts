import { describe, expect, it } from 'vitest';
import { toDisplay } from '../../map/layers/coords';
import { fromDisplay, fromDrawn, splitRoute, toDrawn, withSegmentRule, type Drawn } from '../geometry';

// Tian'anmen, WGS-84 (what terminals report and the API stores).
const BEIJING: [number, number] = [116.391275, 39.906217];

describe('fromDisplay', () => {
  it.each(['gcj02', 'bd09', 'wgs84'] as const)('inverts toDisplay on %s tiles to well under a metre', (system) => {
    const [lat, lng] = toDisplay(BEIJING[0], BEIJING[1], system);
    const [backLng, backLat] = fromDisplay(lat, lng, system);
    expect(Math.abs(backLng - BEIJING[0])).toBeLessThan(1e-7);
    expect(Math.abs(backLat - BEIJING[1])).toBeLessThan(1e-7);
  });

  it('leaves a point outside China unshifted on GCJ-02 tiles', () => {
    expect(fromDisplay(51.5, -0.12, 'gcj02')).toEqual([-0.12, 51.5]);
  });

  it('moves a point drawn on GCJ-02 tiles by the few hundred metres of the offset, not zero', () => {
    const [lng, lat] = fromDisplay(BEIJING[1], BEIJING[0], 'gcj02');
    expect(Math.abs(lng - BEIJING[0]) + Math.abs(lat - BEIJING[1])).toBeGreaterThan(0.001);
  });
});

describe('fromDrawn / toDrawn', () => {
  it('stores a polygon drawn on GCJ-02 tiles as the WGS-84 ring, open (no repeated first point)', () => {
    const ring: [number, number][] = [[116.39, 39.90], [116.40, 39.90], [116.40, 39.91]];
    const drawn: Drawn = { shape: 'polygon', rings: [ring.map(([lng, lat]) => toDisplay(lng, lat, 'gcj02'))] };
    const geometry = fromDrawn(drawn, 'gcj02');
    expect(geometry).toEqual({ rings: [ring] });
  });

  it('drops the closing point a GeoJSON-style ring repeats', () => {
    const geometry = fromDrawn({ shape: 'polygon', rings: [[[1, 2], [1, 3], [2, 3], [1, 2]]] }, 'wgs84');
    expect(geometry).toEqual({ rings: [[[2, 1], [3, 1], [3, 2]]] });
  });

  it('keeps a polygon hole as the second ring', () => {
    const shell: [number, number][] = [[0, 0], [0, 10], [10, 10], [10, 0]];
    const hole: [number, number][] = [[2, 2], [2, 4], [4, 4]];
    expect(fromDrawn({ shape: 'polygon', rings: [shell, hole] }, 'wgs84')).toEqual({
      rings: [shell.map(([a, b]) => [b, a]), hole.map(([a, b]) => [b, a])],
    });
  });

  it('stores a rectangle as its north-west and south-east corners whichever way it was dragged', () => {
    const geometry = fromDrawn({ shape: 'rectangle', corners: [[39.8, 116.5], [39.9, 116.3]] }, 'wgs84');
    expect(geometry).toEqual({ topLeft: [116.3, 39.9], bottomRight: [116.5, 39.8] });
  });

  it('stores a circle centre in WGS-84 and its radius in whole metres', () => {
    const [lat, lng] = toDisplay(BEIJING[0], BEIJING[1], 'bd09');
    const geometry = fromDrawn({ shape: 'circle', center: [lat, lng], radius: 500.4 }, 'bd09');
    expect(geometry).toEqual({ center: BEIJING, radius: 500 });
  });

  it('keeps each route segment rules beside its converted points', () => {
    const drawn: Drawn = { shape: 'route', segments: [{ line: [[39.9, 116.3], [39.91, 116.31]], width: 40, maxTime: 600, minTime: null }] };
    expect(fromDrawn(drawn, 'wgs84')).toEqual({
      segments: [{ points: [[116.3, 39.9], [116.31, 39.91]], width: 40, maxTime: 600, minTime: null }],
    });
  });

  it('round-trips every stored shape through the map on GCJ-02 tiles', () => {
    const stored = {
      circle: { center: BEIJING, radius: 300 },
      rectangle: { topLeft: [116.3, 39.95], bottomRight: [116.45, 39.85] },
      polygon: { rings: [[[116.3, 39.9], [116.4, 39.9], [116.35, 39.95]]] },
      route: { segments: [{ points: [[116.3, 39.9], [116.4, 39.9]], width: 50 }] },
      point: { point: BEIJING },
    } as const;
    for (const [shape, geometry] of Object.entries(stored)) {
      const drawn = toDrawn(shape as keyof typeof stored, geometry, 'gcj02');
      expect(drawn).not.toBeNull();
      expect(fromDrawn(drawn!, 'gcj02')).toEqual(geometry);
    }
  });

  it('draws nothing for a malformed or mismatched geometry instead of throwing', () => {
    expect(toDrawn('circle', { rings: [] }, 'wgs84')).toBeNull();
    expect(toDrawn('polygon', null, 'wgs84')).toBeNull();
    expect(toDrawn('route', { segments: [] }, 'wgs84')).toBeNull();
    expect(toDrawn('district', { districtId: 440305 }, 'wgs84')).toBeNull();
  });
});

describe('route segments', () => {
  it('splits a line at vertices, each segment sharing its end vertex with the next', () => {
    const line: [number, number][] = [[0, 0], [0, 1], [0, 2], [0, 3], [0, 4]];
    expect(splitRoute(line, [2, 2, 9, 0], 30).map((s) => s.line)).toEqual([[[0, 0], [0, 1], [0, 2]], [[0, 2], [0, 3], [0, 4]]]);
  });

  it('changes one segment rule and leaves the others', () => {
    const route: Extract<Drawn, { shape: 'route' }> = { shape: 'route', segments: [{ line: [], width: 50 }, { line: [], width: 50 }] };
    const changed = withSegmentRule(route, 1, 'speedLimit', 40);
    expect(changed.segments.map((s) => s.speedLimit)).toEqual([undefined, 40]);
    expect(route.segments[1].speedLimit).toBeUndefined();
  });
});
