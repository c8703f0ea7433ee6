import { describe, expect, it } from 'vitest';
import { clusterGroupOptions, isClustered } from './clustering';

describe('clustering by zoom (console-spec §4)', () => {
  it('clusters below zoom 18 when clustering is on', () => {
    expect(isClustered(3, true)).toBe(true);
    expect(isClustered(11, true)).toBe(true);
    expect(isClustered(17, true)).toBe(true);
  });

  it('scatters at zoom 18 and above', () => {
    expect(isClustered(18, true)).toBe(false);
    expect(isClustered(19, true)).toBe(false);
  });

  it('never clusters when clustering is off', () => {
    expect(isClustered(5, false)).toBe(false);
    expect(isClustered(17, false)).toBe(false);
  });

  it('configures markercluster with distance 50 and the scatter zoom', () => {
    expect(clusterGroupOptions(true)).toMatchObject({ maxClusterRadius: 50, disableClusteringAtZoom: 18, chunkedLoading: true });
    expect(clusterGroupOptions(false).disableClusteringAtZoom).toBeLessThanOrEqual(3);
  });
});
