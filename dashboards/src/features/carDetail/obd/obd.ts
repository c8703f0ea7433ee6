/**
 * The heavy-diesel detail pages' rules (pure): GB 17691-2018 annex Q's OBD information and engine /
 * after-treatment data stream as the console shows them, shared by g6CarDetail (gb17691), hj1239CarDetail
 * (hj1239) and db4403t363CarDetail (db4403t363, which shows what the HJ 1239 layout covers: no public text
 * of DB4403/T 363 goes beyond it). The codec (protocols/gb32960/messages/emission.py) decodes both
 * standards with one layout; the variants differ only in the standard they name.
 */
import type { CarDetailRouteName } from '../routing';

export type ObdRouteName = Extract<CarDetailRouteName, 'g6CarDetail' | 'hj1239CarDetail' | 'db4403t363CarDetail'>;

/** The standard each heavy-diesel variant names (strings `obd:standard.<key>`). */
export const OBD_VARIANTS: Record<ObdRouteName, { standard: string }> = {
  g6CarDetail: { standard: 'gb17691' },
  hj1239CarDetail: { standard: 'hj1239' },
  db4403t363CarDetail: { standard: 'db4403t363' },
};

export function isObdRoute(name: string | null | undefined): name is ObdRouteName {
  return name != null && Object.hasOwn(OBD_VARIANTS, name);
}

/** The latest state's OBD and data-stream fields (entity `nevState`, api/query/entities_gb32960.py);
 * null: abnormal / invalid in the frame, or never received. */
export interface ObdState {
  deviceId: number;
  protocol: string | null;
  frameProtocol: string | null;
  vin: string | null;
  collectedAt: string | null;
  obdProtocol: number | null;
  mil: number | null;
  diagnosisSupported: number | null;
  diagnosisReady: number | null;
  calibrationId: string | null;
  cvn: string | null;
  obdFaultCodes: number[] | null;
  speedKmh: number | null;
  mileageKm: number | null;
  engineSpeedRpm: number | null;
  engineTorquePct: number | null;
  frictionTorquePct: number | null;
  fuelFlowLPerH: number | null;
  noxUpstreamPpm: number | null;
  noxDownstreamPpm: number | null;
  reagentLevelPct: number | null;
  intakeAirFlowKgPerH: number | null;
  scrInletTempC: number | null;
  scrOutletTempC: number | null;
  dpfPressureDifferenceKpa: number | null;
  coolantTempC: number | null;
  tankLevelPct: number | null;
  atmosphericPressureKpa: number | null;
}

/** Annex Q's OBD protocol byte: 0 ISO 15765, 1 ISO 27145, 2 SAE J1939 (strings `obd:obdProtocol.<n>`);
 * anything else (0xFE invalid arrives as null) has no name. */
export function obdProtocolKey(value: number | null | undefined): string | null {
  return value === 0 || value === 1 || value === 2 ? String(value) : null;
}

/** MIL (malfunction indicator lamp): 0 off, 1 on; anything else unknown. */
export function milState(value: number | null | undefined): 'on' | 'off' | 'unknown' {
  if (value === 1) return 'on';
  if (value === 0) return 'off';
  return 'unknown';
}

/** The 16 monitors of the diagnosis support and readiness words, bit 0 first (annex Q, as in SAE J1979
 * PID 01 / J1939 DM5; strings `obd:monitor.<key>`). */
export const MONITORS = [
  'catalyst', 'heatedCatalyst', 'evaporative', 'secondaryAir', 'acRefrigerant', 'exhaustSensor',
  'exhaustSensorHeater', 'egrVvt', 'coldStartAid', 'boostPressure', 'dpf', 'scrNox', 'nmhcCatalyst', 'misfire',
  'fuelSystem', 'comprehensive',
] as const;
export type MonitorKey = (typeof MONITORS)[number];
/** Support bit 1 = supported; readiness bit 1 = test not complete (0: complete, or not supported). */
export type MonitorState = 'complete' | 'incomplete' | 'unsupported';

export interface Monitor {
  bit: number;
  key: MonitorKey;
  state: MonitorState;
}

/** Each monitor with its state; empty when either word is unknown (no OBD block received yet). */
export function monitors(supported: number | null | undefined, ready: number | null | undefined): Monitor[] {
  if (supported == null || ready == null) return [];
  return MONITORS.map((key, bit) => {
    if (!((supported >> bit) & 1)) return { bit, key, state: 'unsupported' as const };
    return { bit, key, state: (ready >> bit) & 1 ? ('incomplete' as const) : ('complete' as const) };
  });
}


/** The charted readings of `nevReading`, by their field. */
export const CHART_FIELDS = ['noxUpstreamPpm', 'noxDownstreamPpm', 'reagentLevelPct'] as const;
export type ChartField = (typeof CHART_FIELDS)[number];
export type Reading = { collectedAt: string } & Partial<Record<ChartField, number | null>>;

/** Series of [epoch ms, value] per charted field, time order; a reading without the field is a gap (null). */
export function readingSeries(rows: readonly Reading[]): Record<ChartField, [number, number | null][]> {
  const sorted = rows
    .map((row) => [Date.parse(row.collectedAt), row] as const)
    .filter(([at]) => Number.isFinite(at))
    .sort((a, b) => a[0] - b[0]);
  const series = Object.fromEntries(CHART_FIELDS.map((field) => [field, [] as [number, number | null][]])) as Record<
    ChartField, [number, number | null][]>;
  for (const [at, row] of sorted) {
    for (const field of CHART_FIELDS) {
      const value = row[field];
      series[field].push([at, typeof value === 'number' && Number.isFinite(value) ? value : null]);
    }
  }
  return series;
}

/** The data stream card's fields: unit key (strings `obd:units.<unit>`) and the digits of the standard's
 * resolution (annex Q: NOx 0.05 ppm, intake and fuel 0.05, SCR temperatures 0.03125 °C, DPF 0.1 kPa,
 * reagent and tank 0.4 %, engine speed 0.125 rpm; strings `obd:stream.<field>`). */
export const STREAM_FIELDS: [keyof ObdState, string, number][] = [
  ['noxUpstreamPpm', 'ppm', 2], ['noxDownstreamPpm', 'ppm', 2], ['reagentLevelPct', 'pct', 1],
  ['intakeAirFlowKgPerH', 'kgPerH', 2], ['fuelFlowLPerH', 'lPerH', 2], ['dpfPressureDifferenceKpa', 'kpa', 1],
  ['scrInletTempC', 'celsius', 2], ['scrOutletTempC', 'celsius', 2], ['engineSpeedRpm', 'rpm', 1],
  ['engineTorquePct', 'pct', 0], ['frictionTorquePct', 'pct', 0], ['coolantTempC', 'celsius', 0],
  ['tankLevelPct', 'pct', 1], ['atmosphericPressureKpa', 'kpa', 1], ['speedKmh', 'kmh', 1], ['mileageKm', 'km', 1],
];

/** A reading rounded to the standard's resolution, without trailing zeros (a real column's 412.35 reads
 * 412.350006: shown 412.35), or null (abnormal / invalid / never received). */
export function readingText(value: unknown, digits: number): string | null {
  return typeof value === 'number' && Number.isFinite(value) ? String(Number(value.toFixed(digits))) : null;
}
