/** The new-energy detail page's reads, all over the declared entities (api/query/entities_gb32960.py), scoped
 * to the caller's tree by the server: the vehicle's latest state (nevState), today's readings (nevReading)
 * and today's charging sessions (gb32960ChargingLog). */
import type { Dayjs } from 'dayjs';
import { http } from '../../../api/client';
import type { ListPageReply, ListRecord } from '../../list/types';
import { queryAll } from '../../report/api';

/** The latest state of the vehicle's terminal (the shown device's; else the car's newest), or null. */
export async function fetchNevState(carId: number, deviceId: number | null, signal?: AbortSignal): Promise<ListRecord | null> {
  const body: Record<string, unknown> = deviceId !== null ? { 'deviceId.eq': deviceId } : { 'carId.eq': carId };
  const reply = await http.post<ListPageReply>('/api/common/query/nevState.json', {
    params: { pageNo: 1, pageSize: 1, countable: false, orderBy: 'collectedAt', desc: true },
    body, signal, quiet: true,
  });
  return reply.code === 0 && reply.data ? reply.data.list[0] ?? null : null;
}

const range = (field: string, [start, end]: [Dayjs, Dayjs]) => ({ fieldName: field, start: start.toISOString(), end: end.toISOString() });

/** The readings of the vehicle's terminal over a day, oldest first (nevReading is read per terminal: its key). */
export async function fetchNevReadings(deviceId: number, day: [Dayjs, Dayjs], signal?: AbortSignal): Promise<ListRecord[]> {
  const { rows } = await queryAll('nevReading', {}, { 'deviceId.eq': deviceId, rangeConditions: [range('collectedAt', day)] },
    { select: ['collectedAt', 'socPct', 'totalVoltageV', 'totalCurrentA'], maxRows: 20000, orderBy: 'collectedAt', signal });
  return rows;
}

/** The vehicle's charging sessions started in a day, newest first. */
export async function fetchChargingSessions(carId: number, day: [Dayjs, Dayjs], signal?: AbortSignal): Promise<ListRecord[]> {
  const { rows } = await queryAll('gb32960ChargingLog', {}, { 'carId.eq': carId, rangeConditions: [range('startTime', day)] },
    { maxRows: 200, signal });
  return rows;
}
