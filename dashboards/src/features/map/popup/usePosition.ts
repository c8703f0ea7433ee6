/** One device's live position and state from the hub's stores, re-rendering only when they change. */
import { useCallback, useSyncExternalStore } from 'react';
import type { LiveHub } from '../../../live/LiveHub';
import type { LivePosition } from '../../../live/types';
import type { VehicleState } from '../../../live/vehicleStates';

export function useDevicePosition(hub: LiveHub, deviceId: number): LivePosition | undefined {
  const subscribe = useCallback(
    (listener: () => void) =>
      hub.positions.subscribe((changed) => {
        if (changed.some((p) => p.deviceId === deviceId)) listener();
      }),
    [hub, deviceId],
  );
  return useSyncExternalStore(subscribe, () => hub.positions.get(deviceId));
}

export function useDeviceState(hub: LiveHub, deviceId: number): VehicleState | undefined {
  return useSyncExternalStore(hub.states.subscribe, () => hub.states.get(deviceId));
}
