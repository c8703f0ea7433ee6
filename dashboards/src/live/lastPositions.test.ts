import { describe, expect, it } from 'vitest';
import { LAST_POSITION_FIELDS, positionsFromRows, snapshotFromReply } from './lastPositions';

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

describe('the live push rows (the same columns, plus sentAt)', () => {
  it('reads a pushed row as the bulk read does and keeps its receive time for the latency', () => {
    const { positions } = positionsFromRows([...fields, 'sentAt'], [
      [1, 11, null, T, 116.4, 39.9, 42, 90, 50, 1200, 30, 0x80000002, 3, 1, 1, T + 250],
    ]);
    expect(positions).toHaveLength(1);
    const [p] = positions;
    expect([p.deviceId, p.carId, p.timeMs, p.time, p.speed, p.direction, p.acc, p.alarm, p.bizState, p.sentAtMs]).toEqual([
      11, 1, T, new Date(T).toISOString(), 42, 90, 1, 0x80000002, 1, T + 250,
    ]);
  });

  it('skips rows that are not arrays or have no device id, and never throws on junk', () => {
    const { positions, states } = positionsFromRows([...fields, 'sentAt'], [
      'x' as unknown as unknown[],
      [1, null, null, T, 116.4, 39.9],
      [2, 12, null, T, 'east', 39.9],
    ]);
    expect(positions).toEqual([]);
    expect(states).toEqual([[12, { online: false, bizState: 0 }]]);
  });
});
