// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { quadKey } from './bingLayer';
import { toDisplay, wgs84ToGcj02 } from './coords';

describe('base layer coordinates', () => {
  it('keeps WGS-84 for OSM, tianditu, arcgis', () => {
    expect(toDisplay(116.39, 39.91, 'wgs84')).toEqual([39.91, 116.39]);
  });

  it('shifts to GCJ-02 inside China by a few hundred metres', () => {
    const [lng, lat] = wgs84ToGcj02(116.39, 39.91);
    expect(lng - 116.39).toBeGreaterThan(0.004);
    expect(lng - 116.39).toBeLessThan(0.008);
    expect(lat - 39.91).toBeGreaterThan(0.0005);
    expect(lat - 39.91).toBeLessThan(0.003);
  });

  it('does not shift outside China', () => {
    expect(wgs84ToGcj02(2.35, 48.85)).toEqual([2.35, 48.85]);
  });

  it('adds the BD-09 offset on top of GCJ-02', () => {
    const [gLat, gLng] = toDisplay(116.39, 39.91, 'gcj02');
    const [bLat, bLng] = toDisplay(116.39, 39.91, 'bd09');
    expect(bLng - gLng).toBeCloseTo(0.0065, 2);
    expect(bLat - gLat).toBeCloseTo(0.006, 2);
  });

  it('builds Bing quadkeys', () => {
    expect(quadKey(3, 5, 3)).toBe('213');
    expect(quadKey(0, 0, 1)).toBe('0');
  });
});
