import { describe, expect, it } from 'vitest';
import type { LivePosition } from '../../../live/types';
import { isVehicleAlarming, isVehicleOnline, type VehicleState } from '../../../live/vehicleStates';
import type { CarRow } from '../model/types';
import { liveRows } from '../table/liveRows';
import { buildTree, countNodes, filterVehicles, inTab, tabCounts, vehicleKeysIn, type VehicleFacts } from './treeModel';

const car = (carId: number, deviceId: number | null): CarRow => ({
  carId, enterpriseId: 1, groupId: null, plateNumber: `京A${carId}`, plateColor: 2, vin: null,
  masterDeviceId: deviceId, masterDeviceSn: null, masterDevicePhone: null, masterDeviceBizState: 1,
  masterDeviceState: 3, lastOnlineTime: null, hasVideo: 0, hasPhoto: 0, hasMicrophone: 0, driverId: null, driverName: null,
});

// Five vehicles: 1 driving, 2 parked with an alarm, 3 offline with an alarm on its last fix, 4 online
// but business state offline, 5 without a device.
const model = buildTree([{ id: 1, shortName: '总公司', children: [] }], [], [car(1, 11), car(2, 12), car(3, 13), car(4, 14), car(5, null)]);
const states = new Map<number, VehicleState>([
  [11, { online: true, bizState: 1 }],
  [12, { online: true, bizState: 2 }],
  [13, { online: false, bizState: 0 }],
  [14, { online: true, bizState: 0 }],
]);
const alarms = new Map([[12, 4], [13, 1]]);
const facts: VehicleFacts = {
  isOnline: (id) => id != null && isVehicleOnline(states.get(id)),
  isAlarming: (id) => id != null && isVehicleAlarming(states.get(id), { alarm: alarms.get(id) }),
  isFollowed: (carId) => carId === 3 || carId === 5,
};

describe('tree filter tabs', () => {
  it('count all / online / offline / alarming with the one online rule', () => {
    expect(tabCounts(model.roots, facts)).toEqual({ all: 5, online: 2, offline: 3, alarming: 1, followed: 2 });
  });

  it('agree with the enterprise node count (online/total)', () => {
    const counts = countNodes(model.roots, facts.isOnline);
    expect(counts.get('e_1')).toEqual({ online: 2, total: 5 });
  });

  it('filter the tree to the vehicles of the tab, expanding their ancestors', () => {
    const keys = (tab: 'all' | 'online' | 'offline' | 'alarming' | 'followed') => {
      const filtered = filterVehicles(model.roots, (node) => inTab(tab, node, facts));
      return { vehicles: vehicleKeysIn(filtered.roots), expanded: filtered.expandedKeys };
    };
    expect(keys('online').vehicles).toEqual(['c_1_11', 'c_2_12']);
    expect(keys('offline').vehicles).toEqual(['c_3_13', 'c_4_14', 'c_5_0']);
    expect(keys('alarming')).toEqual({ vehicles: ['c_2_12'], expanded: ['e_1'] });
    expect(keys('all').vehicles).toHaveLength(5);
    expect(keys('followed').vehicles).toEqual(['c_3_13', 'c_5_0']);
  });

  it("count an offline vehicle's alarm on its last fix as old news, not alarming (the server's figure too)", () => {
    const position = (id: number) => (alarms.has(id) ? { alarm: alarms.get(id) } as LivePosition : undefined);
    const rows = liveRows(model, 'alarming', (id) => states.get(id), position);
    expect(rows.map((r) => r.deviceId)).toEqual([12]);
  });

  it('list the followed cars in the live table as in the tree', () => {
    const rows = liveRows(model, 'followed', (id) => states.get(id), () => undefined, null, new Set([1, 4]));
    expect(rows.map((r) => r.deviceId)).toEqual([11, 14]);
  });

  it('an empty tab leaves an empty tree', () => {
    const none: VehicleFacts = { isOnline: () => false, isAlarming: () => false, isFollowed: () => false };
    expect(filterVehicles(model.roots, (node) => inTab('alarming', node, none)).roots).toEqual([]);
  });
});
