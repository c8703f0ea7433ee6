import { describe, expect, it } from 'vitest';
import { outlineOf } from '../api';

describe('outlineOf', () => {
  it('parses the WKT multipolygon geoMapData answers', () => {
    const outline = outlineOf('MULTIPOLYGON (((113.9 22.5, 114.0 22.5, 114.0 22.6, 113.9 22.5)))');
    expect(outline).toEqual({ type: 'MultiPolygon', coordinates: [[[[113.9, 22.5], [114.0, 22.5], [114.0, 22.6], [113.9, 22.5]]]] });
  });
  it('takes GeoJSON as is and nothing else', () => {
    expect(outlineOf({ type: 'Point', coordinates: [1, 2] })).toEqual({ type: 'Point', coordinates: [1, 2] });
    expect(outlineOf(null)).toBeNull();
    expect(outlineOf('not wkt')).toBeNull();
  });
});
