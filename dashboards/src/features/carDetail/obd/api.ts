/** The heavy-diesel detail pages' reads: the terminal's latest state (`nevState`) and today's chart readings
 * (`nevReading`, one terminal and a bounded range, oldest first), through the generic query. */
import { http } from '../../../api/client';
import type { ObdState, Reading } from './obd';

interface Page<T> {
  list: T[];
  total?: number;
}

const STATE_FIELDS = [
  'deviceId', 'protocol', 'frameProtocol', 'vin', 'collectedAt', 'obdProtocol', 'mil', 'diagnosisSupported',
  'diagnosisReady', 'calibrationId', 'cvn', 'obdFaultCodes', 'speedKmh', 'mileageKm', 'engineSpeedRpm',
  'engineTorquePct', 'frictionTorquePct', 'fuelFlowLPerH', 'noxUpstreamPpm', 'noxDownstreamPpm', 'reagentLevelPct',
  'intakeAirFlowKgPerH', 'scrInletTempC', 'scrOutletTempC', 'dpfPressureDifferenceKpa', 'coolantTempC',
  'tankLevelPct', 'atmosphericPressureKpa',
].join(',');

/** The terminal's latest state; null when it has sent none yet; undefined when the read failed. */
export async function fetchObdState(deviceId: number, signal?: AbortSignal): Promise<ObdState | null | undefined> {
  const reply = await http.post<Page<ObdState> | null>('/api/common/query/nevState.json', {
    params: { pageNo: 1, pageSize: 1, select: STATE_FIELDS },
    body: { 'deviceId.eq': deviceId },
    signal,
  });
  if (reply.code !== 0) return undefined;
  return reply.data?.list?.[0] ?? null;
}

const READINGS_PAGE = 10_000; // the entity's max_page_size: a day at the standard's 10 s in one read

/** The terminal's readings in [since, until) (ISO times), every page; null when a read failed. */
export async function fetchReadings(deviceId: number, since: string, until: string, signal?: AbortSignal): Promise<Reading[] | null> {
  const rows: Reading[] = [];
  for (let pageNo = 1; ; pageNo += 1) {
    const reply = await http.post<Page<Reading> | null>('/api/common/query/nevReading.json', {
      params: { pageNo, pageSize: READINGS_PAGE, select: 'collectedAt,noxUpstreamPpm,noxDownstreamPpm,reagentLevelPct' },
      body: { 'deviceId.eq': deviceId, rangeConditions: [{ fieldName: 'collectedAt', start: since, end: until }] },
      signal,
    });
    if (reply.code !== 0) return null;
    const list = reply.data?.list ?? [];
    rows.push(...list);
    if (list.length < READINGS_PAGE) return rows;
  }
}
