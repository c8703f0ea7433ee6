/**
 * Loads the vehicle tree (enterprises, groups, cars), seeds the live states from the car rows, and
 * re-reads the states over REST after a socket reconnect (pushes 1 and 6 sent meanwhile are lost).
 */
import { useCallback, useEffect, useState } from 'react';
import { DEVICE_STATE_ONLINE, normaliseBizState } from '../../../live/bizState';
import type { LiveHub } from '../../../live/LiveHub';
import type { VehicleState } from '../../../live/vehicleStates';
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
    entries.push([
      car.masterDeviceId,
      { online: car.masterDeviceState === DEVICE_STATE_ONLINE, bizState: normaliseBizState(car.masterDeviceBizState) },
    ]);
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

  useEffect(() => {
    if (!hub) return undefined;
    return hub.onReconnect(async () => {
      const cars = await fetchCars();
      hub.states.replaceAll(carStates(cars));
    });
  }, [hub]);

  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  return { model, loading: result.attempt !== attempt, failed: result.failed && result.attempt === attempt, reload };
}
