/**
 * Previous / next in the real-time safety alarm dialog (console-spec §4 "Alarm navigation"): the page
 * index (1-based, newest first) moves within today's unhandled alarms of the same car and cannot go
 * below 1 ("当前已是第一条记录") nor past the count.
 */
export type Step = -1 | 1;
export type NavResult = { index: number } | { edge: 'first' | 'last' };

export function navigate(index: number, unhandled: number, step: Step): NavResult {
  const next = index + step;
  if (next < 1) return { edge: 'first' };
  if (next > unhandled) return { edge: 'last' };
  return { index: next };
}

/** The index to show after the current alarm left the unhandled list (null: none left). */
export function indexAfterHandled(index: number, unhandledNow: number): number | null {
  if (unhandledNow <= 0) return null;
  return Math.min(Math.max(index, 1), unhandledNow);
}
