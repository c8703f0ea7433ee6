/**
 * Fences shown on the live map and in track replay (pure parts): the on / off choice kept per browser, and
 * which replayed alarms are fence crossings (alarm type 4 "fence" with a key `fence:<fenceId>:<kind>[:segment]`
 * from the platform's fence step; the terminal's own area items 0x11-0x13 carry the same type).
 */
import { useState } from 'react';

export const FENCE_ALARM_TYPE = 4;
const STORAGE_KEY = 'fleetwatch.showFences';

export function readShowFences(): boolean {
  try {
    return localStorage.getItem(STORAGE_KEY) === '1';
  } catch {
    return false;
  }
}

export function writeShowFences(on: boolean): void {
  try {
    localStorage.setItem(STORAGE_KEY, on ? '1' : '0');
  } catch {
    // private mode: the choice lasts for the page only
  }
}

/** The fence a replayed alarm crossed, or null when it is not a fence alarm. */
export function crossedFenceId(alarm: { type: number; key: string }): number | null {
  const match = /^fence:(\d+):/.exec(alarm.key);
  if (match) return Number(match[1]);
  return alarm.type === FENCE_ALARM_TYPE ? 0 : null;
}

/** Whether fences are shown, and its setter (which keeps the choice). */
export function useShowFences(): [boolean, (on: boolean) => void] {
  const [on, setOn] = useState(readShowFences);
  return [on, (next: boolean) => {
    writeShowFences(next);
    setOn(next);
  }];
}
