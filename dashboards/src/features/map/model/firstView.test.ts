import { describe, expect, it } from 'vitest';
import { buildTree } from '../tree/treeModel';
import type { CarRow } from './types';
import { firstViewKeys } from './firstView';

const car = (carId: number, deviceId: number | null): CarRow => ({
  carId, enterpriseId: 1, groupId: null, plateNumber: `P${carId}`, plateColor: 2, vin: null,
  masterDeviceId: deviceId, masterDeviceSn: null, masterDevicePhone: null, masterDeviceBizState: 1,
  masterDeviceState: 3, lastOnlineTime: null, hasVideo: 0, hasPhoto: 0, hasMicrophone: 0, driverId: null, driverName: null,
});
const model = buildTree([{ id: 1, shortName: 'E', children: [] }], [], [car(1, 11), car(2, 12), car(3, 13), car(4, null)]);

describe('the map on first open', () => {
  it('shows the online vehicles that have a position', () => {
    const keys = firstViewKeys(model, (id) => id !== 13, (id) => id === 11 || id === 13);
    expect(keys).toEqual(['c_1_11']);
  });

  it('shows every located vehicle when none is online', () => {
    expect(firstViewKeys(model, (id) => id !== 13, () => false).sort()).toEqual(['c_1_11', 'c_2_12']);
  });

  it('shows nothing when no vehicle has a position', () => {
    expect(firstViewKeys(model, () => false, () => true)).toEqual([]);
  });
});
