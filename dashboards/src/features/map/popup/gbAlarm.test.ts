import { describe, expect, it } from 'vitest';
import { gbAlarmView } from './gbAlarm';

describe('a GB track point alarm object', () => {
  it('lists the non-empty fault lists in the spec order with their codes, and the level', () => {
    expect(gbAlarmView({ alarm: 5, level: 3, battery: [0x1001, 0x1002], motor: [], engine: [0x2001], other: [7] })).toEqual({
      level: 3,
      lists: [
        { name: 'battery', codes: ['0x00001001', '0x00001002'] },
        { name: 'engine', codes: ['0x00002001'] },
        { name: 'other', codes: ['0x00000007'] },
      ],
      mil: false,
    });
  });

  it('shows a GB 17691 point its OBD codes and the MIL', () => {
    expect(gbAlarmView({ alarm: 0, level: null, obd: [0xa1b2c3], mil: 1 })).toEqual({
      level: null, lists: [{ name: 'obd', codes: ['0x00A1B2C3'] }], mil: true,
    });
  });

  it('shows nothing without an object or with nothing set, and skips what is not a code', () => {
    expect(gbAlarmView(null)).toBeNull();
    expect(gbAlarmView({ alarm: 4, level: null, battery: [] })).toBeNull();
    expect(gbAlarmView({ level: 1.5, battery: ['x', -1, 2] })).toEqual({
      level: null, lists: [{ name: 'battery', codes: ['0x00000002'] }], mil: false,
    });
  });
});
