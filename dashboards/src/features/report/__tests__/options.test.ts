import { describe, expect, it } from 'vitest';
import { bucketLabels, dayLabels, histogram, monthLabels, rankingOption, shareOption, trendOption } from '../charts/options';
import { dayRatios } from '../kpi';

describe('chart options', () => {
  it('draws a day trend with a second axis only when a series asks for it', () => {
    const option = trendOption({ categories: dayLabels([20261015, 20261016]), units: ['km', 'h'], series: [
      { name: '里程', data: [20, 10] },
      { name: '小时', data: [1.5, 2], type: 'line', yAxisIndex: 1 },
    ] });
    expect(option.xAxis.data).toEqual(['10-15', '10-16']);
    expect(Array.isArray(option.yAxis)).toBe(true);
    expect(option.series.map((s) => [s.type, s.yAxisIndex, s.smooth])).toEqual([['bar', 0, undefined], ['line', 1, true]]);
    expect(option.dataZoom).toEqual([]);
    const single = trendOption({ categories: ['a'], series: [{ name: 'x', data: [1], stack: 's' }] });
    expect(Array.isArray(single.yAxis)).toBe(false);
    expect(single.series[0]).toMatchObject({ stack: 's', yAxisIndex: undefined });
  });

  it('adds a zoom slider past the given number of categories', () => {
    const option = trendOption({ categories: Array.from({ length: 40 }, (_, i) => String(i)), zoomAbove: 31, series: [] });
    expect(option.dataZoom).toHaveLength(1);
    expect(option.grid.bottom).toBeGreaterThan(32);
  });

  it('puts the largest of a ranking on top (a category axis draws bottom-up)', () => {
    const option = rankingOption([{ name: '京A', value: 30 }, { name: '京B', value: 10 }], '里程');
    expect(option.yAxis.data).toEqual(['京B', '京A']);
    expect(option.series[0].data).toEqual([10, 30]);
  });

  it('leaves zero shares out of a ring', () => {
    const option = shareOption([{ name: 'ADAS', value: 3 }, { name: 'BSD', value: 0 }], '报警');
    expect(option.series[0].data).toEqual([{ name: 'ADAS', value: 3 }]);
  });

  it('labels months and histogram buckets and counts values into them', () => {
    expect(monthLabels([202610, 202701])).toEqual(['2026-10', '2027-01']);
    expect(histogram([0, 4.9, 5, 12, 250], [0, 5, 10, 200])).toEqual([2, 1, 1, 1]);
    expect(bucketLabels([0, 5, 10])).toEqual(['0-5', '5-10', '10+']);
  });
});

describe('KPI days', () => {
  it('divides the summed counts of the enterprises per day, never averages their percentages', () => {
    const rows = [
      { date: 20261015, onlineVehicles: 9, joinedVehicles: 10, completeKm: 90, totalKm: 100, qualifiedPoints: 1, totalPoints: 1,
        driftVehicles: 0, vehicles: 10 },
      { date: 20261015, onlineVehicles: 1, joinedVehicles: 90, completeKm: 10, totalKm: 10, qualifiedPoints: 1, totalPoints: 1,
        driftVehicles: 1, vehicles: 90 },
    ];
    const ratios = dayRatios(rows, [20261015, 20261016]);
    expect(ratios.onlineRate).toEqual([10, null]); // 10 / 100, not (90 % + 1.1 %) / 2
    expect(ratios.completenessRate[0]).toBe(90.91);
    expect(ratios.driftRate[0]).toBe(10);
  });
});
