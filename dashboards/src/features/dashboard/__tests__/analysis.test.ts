import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { averageSpeeds, monitorCharts } from '../analysisModel';
import { rangeDays } from '../runningRange';

describe('dashboard ranges', () => {
  it('runs today, this week from Monday and this month from the 1st, to today', () => {
    const sunday = dayjs('2026-11-29T09:00:00');
    expect(rangeDays('today', sunday)).toEqual({ startDate: 20261129, endDate: 20261129 });
    expect(rangeDays('week', sunday)).toEqual({ startDate: 20261123, endDate: 20261129 });
    expect(rangeDays('week', dayjs('2026-11-23T01:00:00'))).toEqual({ startDate: 20261123, endDate: 20261123 });
    expect(rangeDays('month', sunday)).toEqual({ startDate: 20261101, endDate: 20261129 });
  });
});

describe('monitor charts', () => {
  it('averages speed over driving hours, not over vehicles', () => {
    expect(averageSpeeds([120, 0], [7200, 0])).toEqual([60, null]);
  });

  it('draws speeds now, mileage, overspeeds, driving hours and average speed per day', () => {
    const rows = [{ date: 20261015, mileageKm: 100, driveS: 7200, overspeedCount: 3, overspeedS: 90 }];
    const charts = monitorCharts(rows, [20261014, 20261015], [0, 0.5, 35, 130], (k) => k);
    expect(charts.speed.series[0].data).toEqual([2, 0, 1, 0, 0, 0, 0, 1]);
    expect(charts.mileage.series[0].data).toEqual([0, 100]);
    expect(charts.overspeed.series.map((s) => s.data)).toEqual([[0, 3], [0, 1.5]]);
    expect(charts.driving.series[0].data).toEqual([0, 2]);
    expect(charts.avgSpeed.series[0].data).toEqual([null, 50]);
  });
});
