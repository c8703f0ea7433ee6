import { describe, expect, test } from 'vitest';
import { dispatch, fillDays, toShipDays } from '../model';

describe('the dispatch dashboard figures', () => {
  test('grouped day sums become days in date order, vehicles out from activeDays', () => {
    const days = toShipDays([
      { date: 20261203, days: 4, activeDays: 3, mileageKm: 120.5, trips: 9, driveS: 7200 },
      { date: 20261201, days: 4, activeDays: 1, mileageKm: null, trips: null, driveS: null },
    ]);
    expect(days).toEqual([
      { date: 20261201, out: 1, mileageKm: 0, trips: 0, driveS: 0 },
      { date: 20261203, out: 3, mileageKm: 120.5, trips: 9, driveS: 7200 },
    ]);
    expect(toShipDays(null)).toEqual([]);
  });

  test('every day of the range is there, across a month end', () => {
    const filled = fillDays([{ date: 20261201, out: 2, mileageKm: 1, trips: 1, driveS: 1 }], 20261130, 20261202);
    expect(filled.map((d) => [d.date, d.out])).toEqual([[20261130, 0], [20261201, 2], [20261202, 0]]);
  });

  test('the dispatch rate is out of the fleet, the idle ones the rest', () => {
    expect(dispatch(3, 8)).toEqual({ rate: 37.5, idle: 5 });
    expect(dispatch(0, 0)).toEqual({ rate: 0, idle: 0 });
    expect(dispatch(5, 4).idle).toBe(0); // day rows of a vehicle deleted since never make idle negative
  });
});
