import { describe, expect, it } from 'vitest';
import { boundRows, pickedCarIds, pickerTree } from '../binding';

const TREE = [{ id: 1, shortName: 'Root', type: 1, state: 1, children: [{ id: 2, shortName: 'Sub', type: 1, state: 1, children: [] }, { id: 3, shortName: 'Empty', type: 1, state: 1, children: [] }] }];

describe('pickerTree', () => {
  it('hangs each vehicle under its enterprise, leaves out enterprises without vehicles, and disables the bound ones', () => {
    const tree = pickerTree(TREE as never, [{ id: 10, plateNumber: '粤B1', enterpriseId: 1 }, { id: 11, plateNumber: '粤B2', enterpriseId: 2 }], new Set([11]));
    expect(tree).toEqual([{ value: 'e_1', title: 'Root', children: [
      { value: 'e_2', title: 'Sub', children: [{ value: 'c_11', title: '粤B2', disabled: true }] },
      { value: 'c_10', title: '粤B1', disabled: false },
    ] }]);
  });

  it('binds the picked vehicles only, once each', () => {
    expect(pickedCarIds(['e_1', 'c_10', 'c_10', 'c_11'])).toEqual([10, 11]);
  });
});

describe('boundRows', () => {
  it('shows each bound vehicle with the worst state of its terminals and the terminal result', () => {
    const rows = boundRows(
      [{ carId: 10, plateNumber: 'A', createdAt: '2026-12-01T00:00:00Z' }, { carId: 11, plateNumber: 'B' }, { carId: 12, plateNumber: 'C' }],
      [
        { carId: 10, state: 'acknowledged', wanted: 'set', result: 0 },
        { carId: 10, state: 'failed', wanted: 'set', result: 3, updatedAt: '2026-12-01T00:01:00Z' },
        { carId: 11, state: 'sent', wanted: 'set' },
        { carId: 12, state: 'pending', wanted: 'delete' },
      ],
    );
    expect(rows.map((r) => [r.carId, r.syncState, r.result])).toEqual([[10, 'failed', 3], [11, 'sent', null], [12, null, null]]);
  });
});
