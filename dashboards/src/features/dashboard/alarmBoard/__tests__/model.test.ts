import { describe, expect, test } from 'vitest';
import { bucketLabel, handledRate, toAlarmBoard, totalByType } from '../model';

describe('the alarm dashboard figures', () => {
  test('the reply becomes numbers, a missing level stays "no level"', () => {
    const board = toAlarmBoard({
      total: '5', unhandled: 4, handled: 1,
      byLevel: [{ level: 1, count: 2 }, { level: null, count: 3 }],
      trend: [{ at: '2026-12-03 08:00', count: '2' }],
      topVehicles: [{ carId: 7, plateNumber: '京A1', count: 3, unhandled: 2 }],
      topEnterprises: [{ enterpriseId: 2, enterpriseName: '甲', count: 5, unhandled: 4 }],
    });
    expect(board.total).toBe(5);
    expect(board.byLevel).toEqual([{ level: 1, count: 2 }, { level: null, count: 3 }]);
    expect(board.trend).toEqual([{ at: '2026-12-03 08:00', count: 2 }]);
    expect(board.topVehicles[0]).toEqual({ carId: 7, plateNumber: '京A1', count: 3, unhandled: 2 });
    expect(toAlarmBoard({}).topEnterprises).toEqual([]);
  });

  test('hours show as HH:00, days as MM-DD', () => {
    expect(bucketLabel('2026-12-03 13:00')).toBe('13:00');
    expect(bucketLabel('2026-12-03')).toBe('12-03');
    expect(bucketLabel('odd')).toBe('odd');
  });

  test('the range total is the sum by type, as on the dashboard index', () => {
    expect(totalByType({ byType: [{ key: 'a1', desc: '超速', count: 2 }, { key: 'a0', desc: '紧急', count: 3 }] })).toBe(5);
    expect(totalByType(null)).toBe(0);
  });

  test('the handled rate has one decimal and is 0 without alarms', () => {
    expect(handledRate({ total: 3, handled: 1 })).toBe(33.3);
    expect(handledRate({ total: 0, handled: 0 })).toBe(0);
    expect(handledRate(null)).toBe(0);
  });
});
