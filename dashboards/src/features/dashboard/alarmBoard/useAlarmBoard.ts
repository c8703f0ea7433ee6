/**
 * Loads the alarm dashboard's two reads for a range (the board and the index's alarm counts) together, every
 * minute, and again soon after a new alarm (push 2 on the one socket owner) or a handling here, at most once per
 * LIVE_DELAY_MS, so bursts of alarms cost one read.
 */
import { useEffect, useState } from 'react';
import { useLiveHub } from '../../../live/useLiveHub';
import { onAlarmChanged } from '../../alarm/alarmEvents';
import { PUSH_ALARM } from '../../alarm/alarmPush';
import { fetchAlarmCounts, type AlarmCounts, type CountRange } from '../../alarm/api';
import { fetchAlarmBoard, type AlarmBoard } from './model';

const REFRESH_MS = 60_000;
export const LIVE_DELAY_MS = 1000;

export interface BoardState {
  range: CountRange;
  board: AlarmBoard | null;
  counts: AlarmCounts | null;
  /** Bumped on every live re-read: the latest unhandled list follows it. */
  version: number;
}

export function useAlarmBoard(range: CountRange, refreshKey: number): BoardState | null {
  const [state, setState] = useState<BoardState | null>(null);
  const hub = useLiveHub();
  useEffect(() => {
    const controller = new AbortController();
    let version = 0;
    const load = () => Promise.all([fetchAlarmBoard(range, controller.signal), fetchAlarmCounts(range, controller.signal)])
      .then(([board, counts]) => {
        if (!controller.signal.aborted) setState({ range, board, counts, version: ++version });
      });
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    let pending: ReturnType<typeof setTimeout> | null = null;
    const soon = () => {
      pending ??= setTimeout(() => {
        pending = null;
        void load();
      }, LIVE_DELAY_MS);
    };
    const stopPushes = hub?.onPush((push) => {
      if (push.type === PUSH_ALARM) soon();
    });
    const stopChanges = onAlarmChanged(soon);
    return () => {
      clearInterval(timer);
      if (pending !== null) clearTimeout(pending);
      stopPushes?.();
      stopChanges();
      controller.abort();
    };
  }, [range, refreshKey, hub]);
  return state?.range === range ? state : null;
}
