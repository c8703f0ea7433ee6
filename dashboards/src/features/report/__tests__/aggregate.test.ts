import { describe, expect, it } from 'vitest';
import { counterStats, counterTotals, dayText, daysBetween, daysInMonth, groupRows, monthsBetween, monthText, percent, perDay,
  pivotDays, ratioText, topN } from '../aggregate';

describe('report day and month keys', () => {
  it('spells yyyymmdd and yyyymm keys as dates', () => {
    expect(dayText(20261015)).toBe('2026-10-15');
    expect(monthText(202601)).toBe('2026-01');
    expect(dayText(null)).toBe('');
  });

  it('lists every day of a range across a month end, both ends included', () => {
    expect(daysBetween(20261030, 20261102)).toEqual([20261030, 20261031, 20261101, 20261102]);
    expect(daysBetween(20240228, 20240301)).toEqual([20240228, 20240229, 20240301]); // leap year
    expect(daysBetween(20261102, 20261101)).toEqual([]);
  });

  it('lists months across a year end and knows their lengths', () => {
    expect(monthsBetween(202611, 202602 + 100)).toEqual([202611, 202612, 202701, 202702]);
    expect(daysInMonth(202602)).toBe(28);
    expect(daysInMonth(202402)).toBe(29);
    expect(daysInMonth(202610)).toBe(31);
  });
});

describe('sums', () => {
  const rows = [
    { date: 20261015, carId: 1, driverId: 7, driverName: '张三', mileageKm: 20, trips: 1 },
    { date: 20261016, carId: 1, driverId: 7, driverName: '张三', mileageKm: 10.5, trips: 2 },
    { date: 20261015, carId: 2, driverId: 8, driverName: '李四', mileageKm: 9, trips: null },
  ];

  it('sums fields per group, counts distinct values and keeps the first row for names', () => {
    const groups = groupRows(rows, 'driverId', ['mileageKm', 'trips'], ['date']);
    expect(groups).toEqual([
      { key: 7, rows: 2, first: rows[0], sums: { mileageKm: 30.5, trips: 3 }, distinct: { date: 2 } },
      { key: 8, rows: 1, first: rows[2], sums: { mileageKm: 9, trips: 0 }, distinct: { date: 1 } },
    ]);
  });

  it('gives one value per day, zero for a day without rows', () => {
    expect(perDay(rows, [20261014, 20261015, 20261016], 'mileageKm')).toEqual([0, 29, 10.5]);
  });

  it('counts alarms, vehicles and vehicle-days per counter, most alarms first, zero counters left out', () => {
    const days = [
      { carId: 1, a1: 2, adas_1: 0 },
      { carId: 1, a1: 1, adas_1: 1 },
      { carId: 2, a1: 0, adas_1: 4 },
    ];
    expect(counterStats(days, ['a1', 'adas_1', 'dsm_1'])).toEqual([
      { key: 'adas_1', count: 5, vehicles: 2, days: 2 },
      { key: 'a1', count: 3, vehicles: 1, days: 2 },
    ]);
    expect(counterTotals(days, ['a1', 'dsm_1'])).toEqual({ a1: 3 });
  });

  it('ranks the largest first with ties by name and cuts at n', () => {
    expect(topN([{ name: 'b', value: 2 }, { name: 'a', value: 2 }, { name: 'c', value: 5 }], 2))
      .toEqual([{ name: 'c', value: 5 }, { name: 'a', value: 2 }]);
  });

  it('writes shares and KPI ratios as percentages', () => {
    expect(percent(1, 3)).toBe(33.3);
    expect(percent(1, 0)).toBeNull();
    expect(ratioText(0.99541)).toBe('99.54%');
    expect(ratioText(null)).toBe('-');
  });
});

describe('monthDataCount pivot', () => {
  it('puts each day row in its dNN column, zero on days without data, null past the month end', () => {
    const months = [{ carId: 1, month: 202602, points: 30 }, { carId: 2, month: 202602, points: 0 }];
    const days = [{ carId: 1, date: 20260201, points: 10 }, { carId: 1, date: 20260228, points: 20 }];
    const [first, second] = pivotDays(months, days);
    expect(first).toMatchObject({ carId: 1, d01: 10, d02: 0, d28: 20, d29: null, d31: null });
    expect(second).toMatchObject({ carId: 2, d01: 0, d28: 0 });
  });
});
