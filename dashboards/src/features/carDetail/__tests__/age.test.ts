import { describe, expect, it } from 'vitest';
import { ageOf, HISTORY_LINKS, historyUrl } from '../age';

describe('age of the last fix', () => {
  const now = Date.parse('2026-11-24T12:00:00Z');
  it.each([
    ['2026-11-24T11:59:30Z', 'seconds', 30],
    ['2026-11-24T11:58:00Z', 'minutes', 2],
    ['2026-11-24T09:00:00Z', 'hours', 3],
    ['2026-11-21T12:00:00Z', 'days', 3],
    ['2026-11-24T12:00:05Z', 'seconds', 0],
  ])('%s is %s %i', (time, key, count) => {
    expect(ageOf(time, now)).toEqual({ key, count });
  });

  it('has none without a valid time', () => {
    expect(ageOf(null, now)).toBeNull();
    expect(ageOf('not a time', now)).toBeNull();
  });
});

describe('history links', () => {
  it('name the replay and every log with the carId query', () => {
    expect(HISTORY_LINKS.map(([, path]) => historyUrl(path, 5))).toEqual([
      '/dashboard/trace?carId=5', '/log/gps?carId=5', '/log/online?carId=5',
      '/log/accState?carId=5', '/log/park?carId=5', '/log/idling?carId=5',
    ]);
  });
});
