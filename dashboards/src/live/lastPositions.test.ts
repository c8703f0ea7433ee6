import { describe, expect, it } from 'vitest';
import { LAST_POSITION_FIELDS, snapshotFromReply } from './lastPositions';

const fields = [...LAST_POSITION_FIELDS];
const T = Date.UTC(2026, 10, 24, 8, 0, 0);

describe('the bulk last-positions reply', () => {
  it('takes online from the device state and keeps an offline vehicle offline despite its position', () => {
    const snapshot = snapshotFromReply({
      fields,
      rows: [
        [1, 11, '京A1', T, 116.4, 39.9, 42, 90, 50, 1200, 30, 0, 3, 1, 1],
        [2, 12, '京A2', T - 3_600_000, 116.5, 39.8, 0, 0, null, null, null, 5, 0, 0, 2],
        [3, 13, '京A3', null, null, null, null, null, null, null, null, null, null, 1, 4],
      ],
      serverTime: T,
    });
    expect(snapshot.states).toEqual([
      [11, { online: true, bizState: 1 }],
      [12, { online: false, bizState: 0 }],
      [13, { online: true, bizState: 4 }],
    ]);
    expect(snapshot.positions.map((p) => [p.deviceId, p.timeMs, p.bizState, p.acc, p.alarm])).toEqual([
      [11, T, 1, 1, 0],
      [12, T - 3_600_000, 0, 0, 5],
    ]);
    expect(snapshot.positions[0].mileage).toBe(1200);
    expect(snapshot.serverTime).toBe(T);
  });

  it('reads the columns by name, whatever their order', () => {
    const snapshot = snapshotFromReply({ fields: ['online', 'deviceId', 'bizState'], rows: [[1, 7, 3]] });
    expect(snapshot.states).toEqual([[7, { online: true, bizState: 3 }]]);
    expect(snapshot.positions).toEqual([]);
  });
});
