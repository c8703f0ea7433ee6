/** Shapes of the STOMP push bodies (docs/topics.md, console.events.v1) and of a vehicle's live position. */

/** A vehicle's fix as the map draws it (from the columnar rows of fleet/position_wire.py: live/lastPositions.ts). */
export interface PushedPosition {
  deviceId: number;
  carId: number | null;
  lng: number;
  lat: number;
  /** Heading in degrees, 0 = north, clockwise. */
  direction: number;
  speed: number;
  /** Fix time, ISO 8601 UTC. */
  time: string;
  bizState: number;
  acc: number;
  alarm: number;
  /** Gateway receive time, epoch ms (pushed positions only: latency measurement). */
  sentAtMs?: number;
}

/** The latest known position of a device: pushed, or read over REST (which adds mileage etc.). */
export interface LivePosition extends PushedPosition {
  mileage?: number | null;
  oilmass?: number | null;
  altitude?: number | null;
  /** Epoch ms of `time`, parsed once. */
  timeMs: number;
}

/** A body on /user/{enterpriseId}/message (console-spec §7 push types). */
export interface PushMessage {
  type: number;
  data: Record<string, unknown> | null;
}

export const PUSH_ONLINE_OFFLINE = 1;
export const PUSH_BIZ_STATE = 6;
/** Ours, not in console-spec §7: a terminal security notice (docs/topics.md, push type 15). */
export const PUSH_SECURITY_NOTICE = 15;
/** Ours: a JT/T 809 inspection (0x9301) from a superior platform (docs/topics.md, push type 16). */
export const PUSH_EXCHANGE_INSPECTION = 16;
