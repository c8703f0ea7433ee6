/**
 * The new-energy detail page's readings, pure (GB/T 32960.3-2016, nev_state as the GB steps store it,
 * warehouse/queries/gb_states.py): the spec's names of the charging state and the gear (platform-spec §4 / §9),
 * the general alarm flags as the catalogue's keys gb0..gb27, the fault codes, the cells of every pack in
 * order, and today's readings as chart series. A reading the terminal sent as abnormal / invalid is null here
 * (shown "-"); the JSON blocks keep the strings "abnormal" / "invalid", read as null too.
 */

/** A number of a decoded block: "abnormal" / "invalid" / missing are null. */
export function reading(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** platform-spec §4 charging state: 1 parked charging, 2 driving charging, 3 not charging, 4 charging finished. */
export const CHARGING_STATES = [1, 2, 3, 4] as const;

/** The key under `nev:chargingState.` of a charging state; anything else `unknown`. */
export function chargingStateKey(value: unknown): string {
  const v = reading(value);
  return v !== null && (CHARGING_STATES as readonly number[]).includes(v) ? String(v) : 'unknown';
}

/** Charging now: state 1 or 2 (the states a charging session is made of). */
export function isCharging(value: unknown): boolean {
  const v = reading(value);
  return v === 1 || v === 2;
}

export interface Gear {
  /** platform-spec §9 gear: 0 unknown, 1 Parking, 2 Reverse, 3 Neutral, 4 Drive, 254 abnormal, 255 invalid. */
  code: 0 | 1 | 2 | 3 | 4 | 254 | 255;
  /** The numbered gear 1-6 in Drive (GB/T 32960 table 10), else null. */
  number: number | null;
  braking: boolean;
  driving: boolean;
}

/**
 * The gear byte of GB/T 32960.3-2016 table 10 as the spec's gear: bits 0-3 are 0 neutral, 1-6 a gear,
 * 13 reverse, 14 automatic drive, 15 parking (7-12 reserved: unknown); bit 4 braking force, bit 5 driving
 * force. The whole byte 0xFE / 0xFF is abnormal / invalid.
 */
export function gearOf(value: unknown): Gear | null {
  const byte = reading(value);
  if (byte === null || !Number.isInteger(byte) || byte < 0 || byte > 255) return null;
  if (byte === 254 || byte === 255) return { code: byte, number: null, braking: false, driving: false };
  const low = byte & 0x0f;
  const flags = { braking: (byte & 0x10) !== 0, driving: (byte & 0x20) !== 0 };
  if (low === 15) return { code: 1, number: null, ...flags };
  if (low === 13) return { code: 2, number: null, ...flags };
  if (low === 0) return { code: 3, number: null, ...flags };
  if (low === 14) return { code: 4, number: null, ...flags };
  if (low >= 1 && low <= 6) return { code: 4, number: low, ...flags };
  return { code: 0, number: null, ...flags };
}

/** GB/T 32960.3 general alarm flags: 2016 table 19 bits 0-18 (the 18-bit object-form alarm, platform-spec §9),
 * the 2025 edition's bits 19-27 too (thermal event, hydrogen leak, ...), each the alarm catalogue's key gb<bit>;
 * bits 28-31 are reserved and left out. The server keeps a 2016 terminal's flags masked to its bits 0-18. */
export const GENERAL_ALARM_BITS = 28;

export function alarmKeysOf(flags: unknown): string[] {
  const value = reading(flags);
  if (value === null || value <= 0) return [];
  const keys: string[] = [];
  for (let bit = 0; bit < GENERAL_ALARM_BITS; bit += 1) {
    if (Math.floor(value / 2 ** bit) % 2 === 1) keys.push(`gb${bit}`);
  }
  return keys;
}

/** The 2025 edition's general fault list as each general alarm's own level, by the alarm's key: an entry is
 * two bytes, the alarm's number (its bit in the general flags) then its level (GB/T 32960.3-2025 table 23, as
 * the server reads it: streams/gb_frames.general_levels). Numbers past the 28 named bits are left out; a 2016
 * terminal sends no list, so every alarm there has only the frame's highest level. */
export function generalLevels(list: unknown): Map<string, number> {
  const levels = new Map<string, number>();
  for (const entry of faultCodes(list)) {
    const bit = Math.floor(entry / 256);
    if (entry >= 0 && bit < GENERAL_ALARM_BITS) levels.set(`gb${bit}`, entry % 256);
  }
  return levels;
}

/** The fault-code lists of 0x07 by the track point's names (platform-spec §3): battery, motor, engine, other. */
export const FAULT_LISTS = [['battery', 'storageFaults'], ['motor', 'motorFaults'], ['engine', 'engineFaults'],
  ['other', 'otherFaults']] as const;

/** A 4-byte fault code as the terminal's vendors print it: 0x followed by 8 upper-case hex digits. */
export function faultCode(code: number): string {
  return `0x${(code >>> 0).toString(16).toUpperCase().padStart(8, '0')}`;
}

/** The codes of one list; a list the terminal sent as abnormal / invalid (a string) or none at all is []. */
export function faultCodes(list: unknown): number[] {
  return Array.isArray(list) ? list.filter((c): c is number => typeof c === 'number' && Number.isInteger(c)) : [];
}

export interface Cell {
  pack: number;
  /** The cell's (or probe's) number in its pack, from the pack's first cell on. */
  index: number;
  value: number | null;
}

/** Every cell voltage (0x08 packs: `cell_voltages_v` from `first_cell`) or probe temperature (0x09
 * packs: `probe_temps_c`), pack by pack, in order. */
export function cellsOf(packs: unknown, values: 'cell_voltages_v' | 'probe_temps_c'): Cell[] {
  if (!Array.isArray(packs)) return [];
  const cells: Cell[] = [];
  for (const pack of packs as Record<string, unknown>[]) {
    if (!pack || typeof pack !== 'object') continue;
    const list = pack[values];
    if (!Array.isArray(list)) continue;
    const first = values === 'cell_voltages_v' ? reading(pack.first_cell) ?? 1 : 1;
    const number = reading(pack.number) ?? 1;
    list.forEach((value, i) => cells.push({ pack: number, index: first + i, value: reading(value) }));
  }
  return cells;
}

/** The label of a cell on the chart's axis: its number, prefixed by its pack when there are several. */
export function cellLabels(cells: readonly Cell[]): string[] {
  const several = new Set(cells.map((c) => c.pack)).size > 1;
  return cells.map((c) => (several ? `${c.pack}-${c.index}` : String(c.index)));
}

export interface Motor {
  number: number;
  status: number | null;
  speedRpm: number | null;
  torqueNm: number | null;
  tempC: number | null;
  controllerTempC: number | null;
  controllerVoltageV: number | null;
  dcCurrentA: number | null;
}

/** The drive motors of 0x02 (table 11); status 1 consuming, 2 generating, 3 off, 4 ready. */
export function motorsOf(motors: unknown): Motor[] {
  if (!Array.isArray(motors)) return [];
  return (motors as Record<string, unknown>[]).filter((m) => m && typeof m === 'object').map((m, i) => ({
    number: reading(m.number) ?? i + 1,
    status: reading(m.status),
    speedRpm: reading(m.speed_rpm),
    torqueNm: reading(m.torque_nm),
    tempC: reading(m.temp_c),
    controllerTempC: reading(m.controller_temp_c),
    controllerVoltageV: reading(m.controller_voltage_v),
    dcCurrentA: reading(m.dc_current_a),
  }));
}

export interface ReadingSeries {
  times: string[];
  soc: (number | null)[];
  voltageV: (number | null)[];
  currentA: (number | null)[];
}

/** nevReading rows (time ascending) as the charts' series; the axis shows local HH:mm:ss. */
export function readingSeries(rows: readonly Record<string, unknown>[], timeLabel: (iso: string) => string): ReadingSeries {
  return {
    times: rows.map((r) => timeLabel(String(r.collectedAt))),
    soc: rows.map((r) => reading(r.socPct)),
    voltageV: rows.map((r) => reading(r.totalVoltageV)),
    currentA: rows.map((r) => reading(r.totalCurrentA)),
  };
}

/** A number with at most `digits` decimals, as the terminal's resolution gives it (0.1 V, 0.001 V a cell). */
export function fixed(value: unknown, digits: number): string | null {
  const v = reading(value);
  return v === null ? null : String(Number(v.toFixed(digits)));
}

/** A JSON block of nev_state as an object, else null (never received, or not an object). */
function blockOf(value: unknown): Record<string, unknown> | null {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** The highest and lowest of a probe list, abnormal / invalid probes left out. */
function spread(list: unknown): { max: number | null; min: number | null; count: number } {
  const values = Array.isArray(list) ? list.map(reading).filter((v): v is number => v !== null) : [];
  return { max: values.length ? Math.max(...values) : null, min: values.length ? Math.min(...values) : null,
    count: Array.isArray(list) ? list.length : 0 };
}

export interface FuelCell {
  /** 2016 (table 13) only: the fuel cell's voltage, current, hydrogen consumption and probe temperatures. */
  voltageV: number | null;
  currentA: number | null;
  h2ConsumptionKgPer100km: number | null;
  probes: { max: number | null; min: number | null; count: number };
  maxH2TempC: number | null;
  maxH2TempProbe: number | null;
  /** In ppm in the 2016 block; the 2025 block's reading (raw / 10000) states no unit. */
  maxH2Concentration: number | null;
  concentrationInPpm: boolean;
  maxH2ConcentrationSensor: number | null;
  maxH2PressureMpa: number | null;
  maxH2PressureSensor: number | null;
  /** DC-DC state: 1 working, 2 disconnected. */
  dcdc: number | null;
  /** 2025 only: hydrogen remaining and the DC-DC controller's temperature. */
  h2RemainingPct: number | null;
  dcdcControllerTempC: number | null;
}

/** The fuel-cell block 0x03 of either edition (nev_state.fuel_cell, the block as decoded). */
export function fuelCellOf(value: unknown): FuelCell | null {
  const b = blockOf(value);
  if (!b) return null;
  return {
    voltageV: reading(b.voltage_v), currentA: reading(b.current_a),
    h2ConsumptionKgPer100km: reading(b.h2_consumption_kg_per_100km), probes: spread(b.probe_temps_c),
    maxH2TempC: reading(b.max_h2_temp_c), maxH2TempProbe: reading(b.max_h2_temp_probe),
    maxH2Concentration: reading(b.max_h2_concentration_ppm ?? b.max_h2_concentration),
    concentrationInPpm: 'max_h2_concentration_ppm' in b,
    maxH2ConcentrationSensor: reading(b.max_h2_concentration_sensor),
    maxH2PressureMpa: reading(b.max_h2_pressure_mpa), maxH2PressureSensor: reading(b.max_h2_pressure_sensor),
    dcdc: reading(b.dcdc), h2RemainingPct: reading(b.h2_remaining_pct),
    dcdcControllerTempC: reading(b.dcdc_controller_temp_c),
  };
}

export interface FuelCellStack {
  number: number;
  voltageV: number | null;
  currentA: number | null;
  h2InletPressureKpa: number | null;
  airInletPressureKpa: number | null;
  airInletTempC: number | null;
  /** The hottest of the stack's coolant outlet probes. */
  coolantOutletMaxC: number | null;
}

/** The 2025 edition's fuel-cell stacks (0x30, nev_state.fuel_cell_stacks), in the order sent. */
export function stacksOf(value: unknown): FuelCellStack[] {
  if (!Array.isArray(value)) return [];
  return value.map(blockOf).filter((s): s is Record<string, unknown> => s !== null).map((s, i) => ({
    number: reading(s.number) ?? i + 1,
    voltageV: reading(s.voltage_v), currentA: reading(s.current_a),
    h2InletPressureKpa: reading(s.h2_inlet_pressure_kpa), airInletPressureKpa: reading(s.air_inlet_pressure_kpa),
    airInletTempC: reading(s.air_inlet_temp_c), coolantOutletMaxC: spread(s.coolant_outlet_temps_c).max,
  }));
}

export interface Extreme {
  value: number | null;
  system: number | null;
  no: number | null;
}

export interface Supercapacitor {
  voltageV: number | null;
  currentA: number | null;
  cells: number;
  probes: number;
  maxCellVoltage: Extreme;
  minCellVoltage: Extreme;
  maxTemp: Extreme;
  minTemp: Extreme;
}

/** The 2025 edition's supercapacitor (0x31) with its extremes (0x32); null when neither was received. The
 * extremes are the terminal's; without them they are read from the cells and probes of the one system sent. */
export function supercapacitorOf(value: unknown, extremes: unknown): Supercapacitor | null {
  const c = blockOf(value);
  const x = blockOf(extremes);
  if (!c && !x) return null;
  const cells = spread(c?.cell_voltages_v);
  const probes = spread(c?.probe_temps_c);
  const system = reading(c?.number);
  const of = (valueKey: string, systemKey: string, noKey: string, fallback: number | null): Extreme => (x
    ? { value: reading(x[valueKey]), system: reading(x[systemKey]), no: reading(x[noKey]) }
    : { value: fallback, system, no: null });
  return {
    voltageV: reading(c?.voltage_v), currentA: reading(c?.current_a), cells: cells.count, probes: probes.count,
    maxCellVoltage: of('max_cell_voltage_v', 'max_voltage_system', 'max_voltage_cell', cells.max),
    minCellVoltage: of('min_cell_voltage_v', 'min_voltage_system', 'min_voltage_cell', cells.min),
    maxTemp: of('max_temp_c', 'max_temp_system', 'max_temp_probe', probes.max),
    minTemp: of('min_temp_c', 'min_temp_system', 'min_temp_probe', probes.min),
  };
}
