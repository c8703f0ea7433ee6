/** Map constants (console-spec §9, platform-spec §9). */
export const MAX_ZOOM = 18;
export const MIN_ZOOM = 3;
export const DEFAULT_ZOOM = 11;
export const DEFAULT_CENTER = { lng: 116.39, lat: 39.91 } as const;
/** Markers cluster below this zoom (when clustering is on) and scatter at it. */
export const SCATTER_ZOOM = 18;
export const CLUSTER_DISTANCE_PX = 50;
/** Cluster icons closer than this are pushed apart (the spec's "min distance 5"). */
export const CLUSTER_MIN_DISTANCE_PX = 5;
/** Single markers closer than this are shifted apart. */
export const MARKER_OVERLAP_PX = 20;
export const FIT_PADDING_PX = 200;
/** Ticked online vehicles are re-read over REST this often. */
export const REFRESH_TICKED_MS = 5000;
export const TICKED_STORAGE_KEY = 'fleetwatch.map.ticked';
export const MAP_PREFS_STORAGE_KEY = 'fleetwatch.map.prefs';
/** Track point popup: the alarm text is cut to this many characters plus an ellipsis. */
export const TRACK_ALARM_MAX_CHARS = 35;
