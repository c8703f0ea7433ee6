import { describe, expect, it } from 'vitest';
import type { CarRow, EnterpriseRow, GroupRow } from '../model/types';
import { buildTree, checkState, countNodes, deviceIdOfKey, filterByPlate, findNode, mergeTicked, toggleTicked, vehicleKeysIn, type VehicleNode } from './treeModel';

function car(carId: number, enterpriseId: number, groupId: number | null, plate: string, deviceId: number | null): CarRow {
  return {
    carId,
    enterpriseId,
    groupId,
    plateNumber: plate,
    plateColor: 2,
    vin: null,
    masterDeviceId: deviceId,
    masterDeviceSn: null,
    masterDevicePhone: null,
    masterDeviceBizState: 1,
    masterDeviceState: 3,
    lastOnlineTime: null,
    hasVideo: 0,
    hasPhoto: 0,
    hasMicrophone: 0,
    driverId: null,
    driverName: null,
  };
}

const enterprises: EnterpriseRow[] = [
  { id: 1, shortName: '总公司', children: [{ id: 2, shortName: '分公司', children: [] }] },
];
const groups: GroupRow[] = [
  { id: 10, name: '第一车队', enterpriseId: 1, parentId: null },
  { id: 11, name: '一队一组', enterpriseId: 1, parentId: 10 },
  { id: 20, name: '第二车队', enterpriseId: 2, parentId: null },
];
const cars: CarRow[] = [
  car(100, 1, 10, '京A00001', 1000),
  car(101, 1, 11, '京A00002', 1001),
  car(102, 1, null, '京A00003', 1002),
  car(200, 2, 20, '粤B00001', 2000),
  car(201, 2, null, '粤B00002', null),
];

const labels = (nodes: VehicleNode[] | undefined) => (nodes ?? []).map((n) => n.key);

describe('vehicle tree from API rows', () => {
  const model = buildTree(enterprises, groups, cars);

  it('nests enterprise → subsidiary → group → vehicle with the spec keys', () => {
    expect(labels(model.roots)).toEqual(['e_1']);
    const root = model.roots[0];
    // subsidiaries first, then groups, then vehicles without a group
    expect(labels(root.children)).toEqual(['e_2', 'g_10', 'c_102_1002']);
    const group10 = root.children![1];
    expect(labels(group10.children)).toEqual(['g_11', 'c_100_1000']);
    expect(labels(group10.children![0].children)).toEqual(['c_101_1001']);
    const sub = root.children![0];
    expect(labels(sub.children)).toEqual(['g_20', 'c_201_0']);
  });

  it('indexes cars by node key and device id', () => {
    expect(model.cars.get('c_200_2000')?.plateNumber).toBe('粤B00001');
    expect(model.keyByDevice.get(1001)).toBe('c_101_1001');
    expect(deviceIdOfKey('c_101_1001')).toBe(1001);
    expect(deviceIdOfKey('c_201_0')).toBeNull();
  });

  it('disables the checkbox of a vehicle without a terminal', () => {
    const sub = model.roots[0].children![0];
    expect(sub.children![1].disableCheckbox).toBe(true);
  });

  it('counts online and total vehicles per node', () => {
    const online = new Set([1000, 1001, 2000]);
    const counts = countNodes(model.roots, (id) => id != null && online.has(id));
    expect(counts.get('e_1')).toEqual({ online: 3, total: 5 });
    expect(counts.get('e_2')).toEqual({ online: 1, total: 2 });
    expect(counts.get('g_10')).toEqual({ online: 2, total: 2 });
    expect(counts.get('g_11')).toEqual({ online: 1, total: 1 });
    expect(counts.get('g_20')).toEqual({ online: 1, total: 1 });
  });

  it('filters by plate keeping ancestors and expanding them', () => {
    const { roots, expandedKeys } = filterByPlate(model.roots, 'a00002');
    expect(vehicleKeysIn(roots)).toEqual(['c_101_1001']);
    expect(expandedKeys.sort()).toEqual(['e_1', 'g_10', 'g_11']);
    expect(filterByPlate(model.roots, '  ').roots).toBe(model.roots);
    expect(filterByPlate(model.roots, 'zzz').roots).toEqual([]);
  });

  it('keeps ticks of vehicles hidden by the search', () => {
    const previous = ['c_100_1000', 'c_200_2000'];
    const visible = ['c_200_2000', 'c_201_0'];
    expect(mergeTicked(previous, visible, ['e_2', 'c_201_0']).sort()).toEqual(['c_100_1000', 'c_201_0']);
  });

  it('hangs rows of unknown enterprises or groups on the root', () => {
    const m = buildTree(enterprises, [{ id: 99, name: 'x', enterpriseId: 77, parentId: null }], [car(5, 77, 555, 'X', 5)]);
    expect(labels(m.roots[0].children)).toEqual(['e_2', 'g_99', 'c_5_5']);
  });
});

describe('the checkboxes tell the true state over every vehicle', () => {
  const vehicle = (key: string, extra: Partial<VehicleNode> = {}): VehicleNode => ({ key, kind: 'vehicle', label: key, isLeaf: true, ...extra });
  const roots: VehicleNode[] = [{ key: 'e_1', kind: 'enterprise', label: '集团', children: [
    { key: 'g_1', kind: 'group', label: '一队', children: [vehicle('c_1_1'), vehicle('c_2_2')] },
    { key: 'e_2', kind: 'enterprise', label: '分公司', children: [vehicle('c_3_3'), vehicle('c_4_', { disableCheckbox: true })] },
  ] }];

  it('a node is ticked only when every tickable vehicle below is, half-ticked when some are', () => {
    expect(checkState(roots, new Set(['c_1_1', 'c_2_2', 'c_3_3']))).toEqual({ checked: ['c_1_1', 'c_2_2', 'g_1', 'c_3_3', 'e_2', 'e_1'], halfChecked: [] });
    expect(checkState(roots, new Set(['c_1_1']))).toEqual({ checked: ['c_1_1'], halfChecked: ['g_1', 'e_1'] });
    expect(checkState(roots, new Set())).toEqual({ checked: [], halfChecked: [] });
  });

  it('after a search that shows one vehicle, ticking the root ticks that one and the root reads half-ticked', () => {
    const shown = filterByPlate(roots, 'c_3').roots;
    const root = shown[0];
    const ticked = toggleTicked([], root, true);
    expect(ticked).toEqual(['c_3_3']);
    const state = checkState(roots, new Set(ticked));
    expect(state.checked).not.toContain('e_1');
    expect(state.halfChecked).toContain('e_1');
    expect(toggleTicked(['c_1_1', 'c_3_3'], root, false)).toEqual(['c_1_1']); // hidden ticks stay
  });

  it('finds a node by key', () => {
    expect(findNode(roots, 'c_3_3')?.label).toBe('c_3_3');
    expect(findNode(roots, 'x')).toBeUndefined();
  });
});
