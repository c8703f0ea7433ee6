import type { CarRow } from '../map/model/types';
import type { Alarm } from './api';

/** The car of the alarm, for the talk and TTS dialogs (null when the alarm names none). */
export function carOf(alarm: Alarm | null): CarRow | null {
  if (alarm?.carId == null) return null;
  return {
    carId: alarm.carId, enterpriseId: alarm.enterpriseId ?? 0, groupId: null, plateNumber: alarm.plateNumber ?? '',
    plateColor: null, vin: null, masterDeviceId: alarm.deviceId, masterDeviceSn: null, masterDevicePhone: null,
    masterDeviceBizState: null, masterDeviceState: null, lastOnlineTime: null, hasVideo: null, hasPhoto: null,
    hasMicrophone: null, driverId: null, driverName: alarm.driverName,
  };
}
