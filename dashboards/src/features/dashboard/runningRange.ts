/** The days of the dashboard's ranges (console-spec §1: today / this week / this month; weeks start on
 * Monday, as the API's alarm counts do). */
import dayjs, { type Dayjs } from 'dayjs';
import { dayKey } from '../list/model';

export type RunningRange = 'today' | 'week' | 'month';

export function rangeDays(range: RunningRange, now: Dayjs = dayjs()): { startDate: number; endDate: number } {
  const today = now.startOf('day');
  const monday = today.subtract((today.day() + 6) % 7, 'day');
  const start = range === 'today' ? today : range === 'week' ? monday : today.startOf('month');
  return { startDate: dayKey(start), endDate: dayKey(today) };
}
