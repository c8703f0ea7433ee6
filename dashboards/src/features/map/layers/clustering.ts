/** Marker clustering rules (console-spec §4, §9): cluster below zoom 18 when on, scatter at 18. */
import { CLUSTER_DISTANCE_PX, MIN_ZOOM, SCATTER_ZOOM } from '../model/constants';

export function isClustered(zoom: number, clusteringOn: boolean): boolean {
  return clusteringOn && zoom < SCATTER_ZOOM;
}

/** leaflet.markercluster options for the toggle. Off still uses the group (for viewport culling). */
export function clusterGroupOptions(clusteringOn: boolean) {
  return {
    maxClusterRadius: CLUSTER_DISTANCE_PX,
    // markercluster treats 0 as "never": MIN_ZOOM means "never cluster" for the zooms the map allows.
    disableClusteringAtZoom: clusteringOn ? SCATTER_ZOOM : MIN_ZOOM,
    chunkedLoading: true,
    chunkInterval: 100,
    chunkDelay: 20,
    removeOutsideVisibleBounds: true,
    showCoverageOnHover: false,
    spiderfyOnMaxZoom: false,
    zoomToBoundsOnClick: true,
    animate: false,
  };
}
