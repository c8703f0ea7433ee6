/** The cockpits' reads: the vehicles of a kind, yesterday's odometers, the last 30 days from the report
 * rollups (enterprise days, alarm days), all over the caller's whole tree (the server's default scope). */
import { http } from '../../api/client';
import type { ListPageReply, ListRecord } from '../list/types';
import { daySums, queryAll } from '../report/api';

export interface CockpitCar {
  carId: number;
  deviceId: number | null;
  plate: string;
}

/** The vehicles of an energy type (platform-spec §9: 1 fuel, 2 new-energy, 3 hybrid). */
export async function fetchCarsOfType(type: number, signal?: AbortSignal): Promise<CockpitCar[]> {
  const reply = await http.post<ListPageReply>('/api/common/query/car.json', {
    params: { select: 'id,masterDeviceId,plateNumber', pageNo: 1, pageSize: 1000, countable: false },
    body: { 'type.eq': type }, signal, quiet: true,
  });
  if (reply.code !== 0 || !reply.data) return [];
  return reply.data.list.map((r) => ({ carId: Number(r.id), deviceId: r.masterDeviceId === null ? null : Number(r.masterDeviceId), plate: String(r.plateNumber ?? '') }));
}

/** Each vehicle's last odometer reading of a day (the day's row `odoEndKm`) and its plate. */
export async function fetchOdometers(day: number, signal?: AbortSignal): Promise<{ odometers: Map<number, number>; plates: Map<number, string> }> {
  const { rows } = await queryAll('carDayReport', {}, { 'date.eq': day }, { select: ['carId', 'plateNumber', 'odoEndKm'], maxRows: 20000, signal });
  return {
    odometers: new Map(rows.filter((r) => r.odoEndKm !== null && r.odoEndKm !== undefined).map((r) => [Number(r.carId), Number(r.odoEndKm)])),
    plates: new Map(rows.map((r) => [Number(r.carId), String(r.plateNumber ?? '')])),
  };
}

/** The enterprises' day rows of a range (mileage, alarms, vehicles driven): a few rows per day. */
export async function fetchEnterpriseDays(first: number, last: number, signal?: AbortSignal): Promise<ListRecord[]> {
  const { rows } = await queryAll('enterpriseDayReport', {}, { 'date.gte': first, 'date.lte': last },
    { select: ['date', 'enterpriseId', 'enterpriseName', 'mileageKm', 'alarms', 'activeVehicles', 'onlineVehicles'], maxRows: 20000, signal });
  return rows;
}

/** Mileage per day of some vehicles (the NEV cockpit's trend). */
export async function fetchCarDays(first: number, last: number, carIds: number[], signal?: AbortSignal): Promise<ListRecord[]> {
  if (carIds.length === 0) return [];
  const reply = await daySums('date', ['mileageKm'], { 'date.gte': first, 'date.lte': last, 'carId.in': carIds }, {}, signal);
  return reply.code === 0 ? reply.data ?? [] : [];
}

/** The terminals' alarm days of a range that had alarms (sparse), for the safety ranking. */
export async function fetchAlarmDays(first: number, last: number, carIds: number[] | null, signal?: AbortSignal): Promise<ListRecord[]> {
  const body: Record<string, unknown> = { 'date.gte': first, 'date.lte': last, 'alarmTotal.gt': 0 };
  if (carIds) body['carId.in'] = carIds;
  const { rows } = await queryAll('deviceDayReport', {}, body, { select: ['carId', 'plateNumber', 'alarmTotal', 'activeSafety'], maxRows: 20000, signal });
  return rows;
}

/** Each GB/T 32960 vehicle's latest charging state and SOC (nevState: one row per terminal of the caller's tree). */
export async function fetchNevStates(signal?: AbortSignal): Promise<ListRecord[]> {
  const { rows } = await queryAll('nevState', {}, { 'protocol.eq': 'gb32960' },
    { select: ['deviceId', 'carId', 'socPct', 'chargingState'], maxRows: 20000, signal });
  return rows;
}
