/** The ticked vehicles: keys persisted in sessionStorage, and their devices for the map. */
import { useCallback, useMemo, useState } from 'react';
import { readTicked, writeTicked } from '../model/prefs';
import { deviceIdOfKey, type TreeModel } from '../tree/treeModel';

export interface TickedVehicle {
  key: string;
  deviceId: number;
  plate: string;
}

export function useTicked(): [string[], (keys: string[]) => void] {
  const [ticked, setTickedState] = useState<string[]>(readTicked);
  const setTicked = useCallback((keys: string[]) => {
    setTickedState(keys);
    writeTicked(keys);
  }, []);
  return [ticked, setTicked];
}

/** Ticked vehicles that exist in the tree and have a terminal. */
export function useTickedVehicles(model: TreeModel | null, ticked: readonly string[]): TickedVehicle[] {
  return useMemo(() => {
    if (!model) return [];
    const vehicles: TickedVehicle[] = [];
    for (const key of ticked) {
      const car = model.cars.get(key);
      const deviceId = deviceIdOfKey(key);
      if (car && deviceId !== null) vehicles.push({ key, deviceId, plate: car.plateNumber });
    }
    return vehicles;
  }, [model, ticked]);
}
