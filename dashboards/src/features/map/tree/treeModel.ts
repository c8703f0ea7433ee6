/**
 * The vehicle tree (enterprise → subsidiary → group → vehicle) built from the API rows, with the
 * node keys of platform-spec §9: e_{id}, g_{id}, c_{carId}_{deviceId}. Pure: no React, no antd.
 */
import type { CarRow, EnterpriseRow, GroupRow } from '../model/types';

export type NodeKind = 'enterprise' | 'group' | 'vehicle';

export interface VehicleNode {
  key: string;
  kind: NodeKind;
  /** Enterprise short name, group name or plate number. */
  label: string;
  children?: VehicleNode[];
  isLeaf?: boolean;
  /** Vehicles without a master device cannot be shown on the map. */
  disableCheckbox?: boolean;
  carId?: number;
  deviceId?: number | null;
}

export interface TreeModel {
  roots: VehicleNode[];
  /** Vehicle node key → car row. */
  cars: Map<string, CarRow>;
  /** Master device id → vehicle node key. */
  keyByDevice: Map<number, string>;
}

export interface NodeCount {
  online: number;
  total: number;
}

export const enterpriseKey = (id: number): string => `e_${id}`;
export const groupKey = (id: number): string => `g_${id}`;
export const vehicleKey = (carId: number, deviceId: number | null | undefined): string =>
  `c_${carId}_${deviceId ?? 0}`;

export function isVehicleKey(key: string): boolean {
  return key.startsWith('c_');
}

/** The device id in a vehicle key, or null (c_{carId}_0 has none). */
export function deviceIdOfKey(key: string): number | null {
  const match = /^c_\d+_(\d+)$/.exec(key);
  const id = match ? Number(match[1]) : 0;
  return id > 0 ? id : null;
}

export function buildTree(enterprises: EnterpriseRow[], groups: GroupRow[], cars: CarRow[]): TreeModel {
  const enterpriseNodes = new Map<number, VehicleNode>();
  const groupNodes = new Map<number, VehicleNode>();
  // Children collected per kind so each enterprise lists subsidiaries, then groups, then vehicles.
  const subsidiariesOf = new Map<string, VehicleNode[]>();
  const groupsOf = new Map<string, VehicleNode[]>();
  const vehiclesOf = new Map<string, VehicleNode[]>();
  const push = (bucket: Map<string, VehicleNode[]>, parentKey: string, node: VehicleNode) => {
    const list = bucket.get(parentKey);
    if (list) list.push(node);
    else bucket.set(parentKey, [node]);
  };

  const roots: VehicleNode[] = [];
  const visit = (row: EnterpriseRow, parent: VehicleNode | null) => {
    const node: VehicleNode = { key: enterpriseKey(row.id), kind: 'enterprise', label: row.shortName || row.name || String(row.id) };
    enterpriseNodes.set(row.id, node);
    if (parent) push(subsidiariesOf, parent.key, node);
    else roots.push(node);
    for (const child of row.children ?? []) visit(child, node);
  };
  for (const root of enterprises) visit(root, null);
  const fallbackRoot = (): VehicleNode => {
    if (roots.length === 0) roots.push({ key: enterpriseKey(0), kind: 'enterprise', label: '-' });
    return roots[0];
  };

  for (const group of groups) {
    groupNodes.set(group.id, { key: groupKey(group.id), kind: 'group', label: group.name });
  }
  for (const group of groups) {
    const node = groupNodes.get(group.id)!;
    const parentGroup = group.parentId != null ? groupNodes.get(group.parentId) : undefined;
    const parent = parentGroup ?? enterpriseNodes.get(group.enterpriseId) ?? fallbackRoot();
    push(groupsOf, parent.key, node);
  }

  const carsByKey = new Map<string, CarRow>();
  const keyByDevice = new Map<number, string>();
  for (const car of cars) {
    const key = vehicleKey(car.carId, car.masterDeviceId);
    const node: VehicleNode = {
      key,
      kind: 'vehicle',
      label: car.plateNumber,
      isLeaf: true,
      carId: car.carId,
      deviceId: car.masterDeviceId,
      disableCheckbox: car.masterDeviceId == null,
    };
    carsByKey.set(key, car);
    if (car.masterDeviceId != null) keyByDevice.set(car.masterDeviceId, key);
    const parent =
      (car.groupId != null ? groupNodes.get(car.groupId) : undefined) ??
      enterpriseNodes.get(car.enterpriseId) ??
      fallbackRoot();
    push(vehiclesOf, parent.key, node);
  }

  const attach = (node: VehicleNode) => {
    if (node.kind === 'vehicle') return;
    const children = [
      ...(subsidiariesOf.get(node.key) ?? []),
      ...(groupsOf.get(node.key) ?? []),
      ...(vehiclesOf.get(node.key) ?? []),
    ];
    node.children = children;
    for (const child of children) attach(child);
  };
  for (const root of roots) attach(root);
  return { roots, cars: carsByKey, keyByDevice };
}

/** online/total per enterprise and group node (vehicles count themselves). Post-order, O(nodes). */
export function countNodes(
  roots: readonly VehicleNode[],
  isOnline: (deviceId: number | null | undefined) => boolean,
): Map<string, NodeCount> {
  const counts = new Map<string, NodeCount>();
  const walk = (node: VehicleNode): NodeCount => {
    if (node.kind === 'vehicle') {
      return { online: isOnline(node.deviceId) ? 1 : 0, total: 1 };
    }
    const sum: NodeCount = { online: 0, total: 0 };
    for (const child of node.children ?? []) {
      const c = walk(child);
      sum.online += c.online;
      sum.total += c.total;
    }
    counts.set(node.key, sum);
    return sum;
  };
  for (const root of roots) walk(root);
  return counts;
}

/**
 * The tree reduced to the vehicles `keepVehicle` accepts and their ancestors, with the keys to
 * expand (every ancestor of a kept vehicle).
 */
export function filterVehicles(
  roots: readonly VehicleNode[],
  keepVehicle: (node: VehicleNode) => boolean,
): { roots: VehicleNode[]; expandedKeys: string[] } {
  const expandedKeys: string[] = [];
  const keep = (node: VehicleNode): VehicleNode | null => {
    if (node.kind === 'vehicle') return keepVehicle(node) ? node : null;
    const children = (node.children ?? []).map(keep).filter((c): c is VehicleNode => c !== null);
    if (children.length === 0) return null;
    expandedKeys.push(node.key);
    return { ...node, children };
  };
  return { roots: roots.map(keep).filter((n): n is VehicleNode => n !== null), expandedKeys };
}

/**
 * The tree reduced to vehicles whose plate contains `query` (case-insensitive) and their ancestors,
 * with the keys to expand. An empty query returns the tree as is.
 */
export function filterByPlate(
  roots: readonly VehicleNode[],
  query: string,
): { roots: VehicleNode[]; expandedKeys: string[] } {
  const needle = query.trim().toLowerCase();
  if (!needle) return { roots: roots as VehicleNode[], expandedKeys: [] };
  return filterVehicles(roots, (node) => node.label.toLowerCase().includes(needle));
}

/** The tree's filter tabs (its overview: all, online, offline, alarming; and the caller's followed cars,
 * platform-spec §7 carUserView). */
export const TREE_TABS = ['all', 'online', 'offline', 'alarming', 'followed'] as const;
export type TreeTab = (typeof TREE_TABS)[number];

/** What a tab needs to know of a vehicle: the one online rule and whether its last fix has alarms. */
export interface VehicleFacts {
  isOnline: (deviceId: number | null | undefined) => boolean;
  isAlarming: (deviceId: number | null | undefined) => boolean;
  isFollowed: (carId: number | undefined) => boolean;
}

export function inTab(tab: TreeTab, node: VehicleNode, facts: VehicleFacts): boolean {
  switch (tab) {
    case 'all':
      return true;
    case 'online':
      return facts.isOnline(node.deviceId);
    case 'offline':
      return !facts.isOnline(node.deviceId);
    case 'alarming':
      return facts.isAlarming(node.deviceId);
    case 'followed':
      return facts.isFollowed(node.carId);
  }
}

/** Vehicles per tab over the whole tree (each vehicle once, whatever the search). */
export function tabCounts(roots: readonly VehicleNode[], facts: VehicleFacts): Record<TreeTab, number> {
  const counts: Record<TreeTab, number> = { all: 0, online: 0, offline: 0, alarming: 0, followed: 0 };
  const walk = (node: VehicleNode) => {
    if (node.kind !== 'vehicle') {
      for (const child of node.children ?? []) walk(child);
      return;
    }
    counts.all += 1;
    if (facts.isOnline(node.deviceId)) counts.online += 1;
    else counts.offline += 1;
    if (facts.isAlarming(node.deviceId)) counts.alarming += 1;
    if (facts.isFollowed(node.carId)) counts.followed += 1;
  };
  for (const root of roots) walk(root);
  return counts;
}

/** Vehicle keys in a (possibly filtered) tree. */
export function vehicleKeysIn(roots: readonly VehicleNode[]): string[] {
  const keys: string[] = [];
  const walk = (node: VehicleNode) => {
    if (node.kind === 'vehicle') keys.push(node.key);
    else for (const child of node.children ?? []) walk(child);
  };
  for (const root of roots) walk(root);
  return keys;
}

/**
 * The ticked set after a check in a tree that may show only part of the vehicles (search): ticks of
 * hidden vehicles survive, the visible ones take the new state.
 */
export function mergeTicked(previous: readonly string[], visible: readonly string[], checkedNow: readonly string[]): string[] {
  const visibleSet = new Set(visible);
  const next = previous.filter((key) => !visibleSet.has(key));
  for (const key of checkedNow) if (isVehicleKey(key) && visibleSet.has(key)) next.push(key);
  return Array.from(new Set(next));
}

/** The ticks every checkbox shows: each vehicle's own, and each enterprise or group node's over ALL the
 * vehicles below it, not only those a search or a tab shows: ticked when every tickable vehicle is,
 * half-ticked (indeterminate) when some are. The tree is drawn with antd's checkStrictly and these. */
export function checkState(roots: readonly VehicleNode[], ticked: ReadonlySet<string>): { checked: string[]; halfChecked: string[] } {
  const checked: string[] = [];
  const halfChecked: string[] = [];
  const walk = (node: VehicleNode): [number, number] => {
    if (node.kind === 'vehicle') {
      if (node.disableCheckbox) return [0, 0];
      const on = ticked.has(node.key);
      if (on) checked.push(node.key);
      return [1, on ? 1 : 0];
    }
    let total = 0;
    let on = 0;
    for (const child of node.children ?? []) {
      const [childTotal, childOn] = walk(child);
      total += childTotal;
      on += childOn;
    }
    if (total > 0 && on === total) checked.push(node.key);
    else if (on > 0) halfChecked.push(node.key);
    return [total, on];
  };
  for (const root of roots) walk(root);
  return { checked, halfChecked };
}

/** The ticked set after a click on `node`'s checkbox in the shown tree: a vehicle alone, or every
 * tickable vehicle the node shows (a search's matches only); ticks of hidden vehicles stay. */
export function toggleTicked(ticked: readonly string[], node: VehicleNode, on: boolean): string[] {
  const keys = new Set<string>();
  const walk = (n: VehicleNode) => {
    if (n.kind === 'vehicle') {
      if (!n.disableCheckbox) keys.add(n.key);
    } else for (const child of n.children ?? []) walk(child);
  };
  walk(node);
  if (on) return Array.from(new Set([...ticked, ...keys]));
  return ticked.filter((key) => !keys.has(key));
}

/** The node of `key` in a tree (undefined when the tree does not show it). */
export function findNode(roots: readonly VehicleNode[], key: string): VehicleNode | undefined {
  for (const node of roots) {
    if (node.key === key) return node;
    const found = findNode(node.children ?? [], key);
    if (found) return found;
  }
  return undefined;
}
