import { describe, expect, it } from 'vitest';
import { nevFigures } from '../model';

describe('the new-energy board\'s figures', () => {
  const rows = [
    { carId: 1, socPct: 80, chargingState: 1 },
    { carId: 2, socPct: 51, chargingState: 3 },
    { carId: 3, socPct: null, chargingState: 2 },
    { carId: 9, socPct: 10, chargingState: 1 }, // not a vehicle of the board
    { carId: null, socPct: 5, chargingState: 1 },
  ];
  it('counts the board\'s vehicles charging now and averages the SOC of those reporting one', () => {
    expect(nevFigures(rows, new Set([1, 2, 3]))).toEqual({ charging: 2, soc: 66 });
  });
  it('has no SOC when no vehicle reports one', () => {
    expect(nevFigures(rows, new Set([3]))).toEqual({ charging: 1, soc: null });
    expect(nevFigures([], new Set())).toEqual({ charging: 0, soc: null });
  });
});
