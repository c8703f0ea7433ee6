/**
 * The replay of a set of tracks on one clock: the merged timeline, the clock's state (re-rendered only
 * when the marker's point or the status changes) and each vehicle's point at the current time.
 */
import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { ReplayClock } from './replayClock';
import type { ReplayState } from './replayModel';
import { mergeTimeline, pointIndexAt, type VehicleTrack } from './track';

export interface Replay {
  clock: ReplayClock;
  state: ReplayState;
  timeline: number[];
  /** The current time of the timeline, or null when no marker is shown. */
  time: number | null;
  /** Per vehicle (by carId): its point index at `time`, or null without a marker. */
  pointIndex: Map<number, number | null>;
}

export function useReplay(tracks: readonly VehicleTrack[]): Replay {
  const [clock] = useState(() => new ReplayClock());
  const timeline = useMemo(() => mergeTimeline(tracks), [tracks]);
  useEffect(() => clock.load(timeline.length), [clock, timeline]);
  useEffect(() => () => clock.dispose(), [clock]);
  const state = useSyncExternalStore(clock.subscribe, clock.getState);
  // Until the clock has loaded this timeline its index may point past it.
  const index = state.index !== null && state.index < timeline.length ? state.index : null;
  const time = index === null ? null : timeline[index];
  const pointIndex = useMemo(() => {
    const byCar = new Map<number, number | null>();
    for (const track of tracks) byCar.set(track.carId, time === null || track.points.length === 0 ? null : pointIndexAt(track.points, time));
    return byCar;
  }, [tracks, time]);
  return { clock, state, timeline, time, pointIndex };
}
