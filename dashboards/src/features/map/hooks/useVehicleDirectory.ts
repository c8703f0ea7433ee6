/**
 * Loads the vehicle tree (enterprises, groups, cars) and seeds the live states from the car rows
 * (the device's own state). The bulk last-positions read (useFleetSnapshot) then replaces them, on
 * load and after every reconnect.
 */
import { useCallback, useEffect, useState } from 'react';
import type { LiveHub } from '../../../live/LiveHub';
import { stateOfDevice, type VehicleState } from '../../../live/vehicleStates';
import { fetchCars, fetchEnterprises, fetchGroups } from '../model/api';
import type { CarRow } from '../model/types';
import { buildTree, type TreeModel } from '../tree/treeModel';

export interface Directory {
  model: TreeModel | null;
  loading: boolean;
  failed: boolean;
  reload: () => void;
}

export function carStates(cars: Iterable<CarRow>): [number, VehicleState][] {
  const entries: [number, VehicleState][] = [];
  for (const car of cars) {
    if (car.masterDeviceId == null) continue;
    entries.push([car.masterDeviceId, stateOfDevice(car.masterDeviceState, car.masterDeviceBizState)]);
  }
  return entries;
}

export function useVehicleDirectory(hub: LiveHub | null): Directory {
  const [attempt, setAttempt] = useState(0);
  const [result, setResult] = useState<{ attempt: number; model: TreeModel | null; failed: boolean }>({
    attempt: -1,
    model: null,
    failed: false,
  });

  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    Promise.all([fetchEnterprises(signal), fetchGroups(signal), fetchCars(signal)])
      .then(([enterprises, groups, cars]) => {
        if (!signal.aborted) setResult({ attempt, model: buildTree(enterprises, groups, cars), failed: false });
      })
      .catch(() => {
        if (!signal.aborted) setResult((previous) => ({ ...previous, attempt, failed: true }));
      });
    return () => controller.abort();
  }, [attempt]);

  const model = result.model;
  useEffect(() => {
    if (hub && model) hub.states.seed(carStates(model.cars.values()));
  }, [hub, model]);

  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  return { model, loading: result.attempt !== attempt, failed: result.failed && result.attempt === attempt, reload };
}
