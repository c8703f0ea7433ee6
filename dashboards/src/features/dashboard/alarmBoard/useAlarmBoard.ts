/**
 * Loads the alarm dashboard's two reads for a range (the board and the index's alarm counts) together, every
 * minute, and again soon after a new alarm or a handling here (features/alarm/alarmEvents.ts `keepAlarmFiguresFresh`).
 */
import { useEffect, useState } from 'react';
import { useLiveHub } from '../../../live/useLiveHub';
import { keepAlarmFiguresFresh } from '../../alarm/alarmEvents';
import { fetchAlarmCounts, type AlarmCounts, type CountRange } from '../../alarm/api';
import { fetchAlarmBoard, type AlarmBoard } from './model';

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
    const stop = keepAlarmFiguresFresh(() => void Promise.all([fetchAlarmBoard(range, controller.signal),
      fetchAlarmCounts(range, controller.signal)]).then(([board, counts]) => {
      if (!controller.signal.aborted) setState({ range, board, counts, version: ++version });
    }), hub);
    return () => {
      stop();
      controller.abort();
    };
  }, [range, refreshKey, hub]);
  return state?.range === range ? state : null;
}
