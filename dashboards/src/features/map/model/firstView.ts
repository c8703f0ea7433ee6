/**
 * What the map shows on its first open in a browser tab, when nothing was ticked yet (the map
 * opens useful): the online vehicles that have a position, or, when none is online, every
 * vehicle with a position. Pure.
 */
import type { TreeModel } from '../tree/treeModel';

export function firstViewKeys(
  model: TreeModel,
  hasPosition: (deviceId: number) => boolean,
  isOnline: (deviceId: number) => boolean,
): string[] {
  const located: [string, number][] = [];
  for (const [deviceId, key] of model.keyByDevice) if (hasPosition(deviceId)) located.push([key, deviceId]);
  const online = located.filter(([, deviceId]) => isOnline(deviceId));
  return (online.length > 0 ? online : located).map(([key]) => key);
}
