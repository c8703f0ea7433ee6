/** Rows of the live vehicle table: the tree's vehicles in the current tab (and search), with their last fix. Pure. */
import type { LivePosition } from '../../../live/types';
import { isVehicleAlarming, isVehicleOnline, shownBizState, type VehicleState } from '../../../live/vehicleStates';
import { inTab, type TreeModel, type TreeTab, type VehicleFacts, type VehicleNode } from '../tree/treeModel';

export interface LiveRow {
  key: string;
  deviceId: number | null;
  plate: string;
  online: boolean;
  bizState: number;
  speed: number | null;
  timeMs: number | null;
  lng: number | null;
  lat: number | null;
}

export function liveRows(
  model: TreeModel,
  tab: TreeTab,
  stateOf: (deviceId: number) => VehicleState | undefined,
  positionOf: (deviceId: number) => LivePosition | undefined,
  matches: ReadonlyMap<string, unknown> | null = null,
  followed: ReadonlySet<number> = new Set(),
): LiveRow[] {
  const facts: VehicleFacts = {
    isOnline: (id) => id != null && isVehicleOnline(stateOf(id)),
    isAlarming: (id) => id != null && isVehicleAlarming(stateOf(id), positionOf(id)),
    isFollowed: (carId) => carId != null && followed.has(carId),
  };
  const rows: LiveRow[] = [];
  const vehicles: VehicleNode[] = [];
  const walk = (list: readonly VehicleNode[]) => {
    for (const node of list) {
      if (node.kind === 'vehicle') vehicles.push(node);
      else walk(node.children ?? []);
    }
  };
  walk(model.roots);
  for (const node of vehicles) {
    const car = model.cars.get(node.key);
    if (!car || !inTab(tab, node, facts) || (matches && !matches.has(node.key))) continue;
    const deviceId = car.masterDeviceId;
    const state = deviceId != null ? stateOf(deviceId) : undefined;
    const fix = deviceId != null ? positionOf(deviceId) : undefined;
    rows.push({
      key: node.key,
      deviceId,
      plate: car.plateNumber,
      online: isVehicleOnline(state),
      bizState: shownBizState(state),
      speed: fix ? fix.speed : null,
      timeMs: fix ? fix.timeMs : null,
      lng: fix ? fix.lng : null,
      lat: fix ? fix.lat : null,
    });
  }
  return rows;
}
