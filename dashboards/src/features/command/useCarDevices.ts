import { useEffect, useState } from 'react';
import { fetchCarDevices, type CarDevice } from './api';

export type Ability = 'hasPhoto' | 'hasVideo' | 'hasMicrophone';

/** The car's devices (null while loading); with an ability, only the devices that have it. */
export function useCarDevices(carId: number, ability?: Ability): CarDevice[] | null {
  const [devices, setDevices] = useState<{ carId: number; list: CarDevice[] } | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    void fetchCarDevices(carId, controller.signal).then((list) => {
      if (!controller.signal.aborted) setDevices({ carId, list });
    });
    return () => controller.abort();
  }, [carId]);
  if (!devices || devices.carId !== carId) return null;
  return ability ? devices.list.filter((d) => Number(d[ability]) > 0) : devices.list;
}

/** The device a dialog starts with: the master device when eligible, else the first one. */
export function defaultDevice(devices: CarDevice[], masterDeviceId: number | null): CarDevice | undefined {
  return devices.find((d) => d.id === masterDeviceId) ?? devices[0];
}
