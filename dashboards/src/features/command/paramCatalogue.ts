/**
 * The terminal parameters the console names and edits (JT/T 808-2013/2019 table 12), grouped as the
 * terminal-parameters screen shows them, and the alarm-configuration dialog's fields
 * (console-spec §5 table: ranges and required messages), each mapped to its parameter id.
 * Names are in the `command` namespace under `params.<hex id>`.
 */
import { TYPE_MAX, type ParamType } from './paramValues';

export type ParamGroup = 'communication' | 'server' | 'position' | 'alarm' | 'vehicle';

export interface ParamDef {
  id: number;
  type: ParamType;
  group: ParamGroup;
  /** Key of `units.*` shown after the value. */
  unit?: string;
  /** Inclusive range of the shown value (numbers), or the longest text in bytes (strings). */
  min?: number;
  max?: number;
  /**
   * A link or identity parameter (server address, port, APN, dial user / password, the vehicle's
   * province, city, plate): writing it asks for a confirmation and needs the sensitiveCommand
   * permission on the server.
   */
  guard?: boolean;
}

/**
 * The server's parameter table (protocols/jt808/messages/param_table.py) for the ids this screen edits:
 * ranges narrower than the wire type, and the longest texts in bytes. The server checks again.
 */
const RANGES: Record<number, { min?: number; max: number }> = {
  0x0001: { min: 5, max: 3600 },
  0x0002: { min: 1, max: 600 }, 0x0004: { min: 1, max: 600 }, 0x0006: { min: 1, max: 600 },
  0x0003: { min: 0, max: 10 }, 0x0005: { min: 0, max: 10 }, 0x0007: { min: 0, max: 10 },
  0x0010: { max: 32 }, 0x0011: { max: 32 }, 0x0012: { max: 32 }, 0x0014: { max: 32 }, 0x0015: { max: 32 }, 0x0016: { max: 32 },
  0x0018: { min: 1, max: 65535 }, 0x0019: { min: 1, max: 65535 },
  0x0020: { min: 0, max: 2 }, 0x0021: { min: 0, max: 1 },
  0x0022: { min: 1, max: 86400 }, 0x0027: { min: 1, max: 86400 }, 0x0028: { min: 1, max: 3600 }, 0x0029: { min: 1, max: 3600 },
  0x002c: { min: 1, max: 100000 }, 0x002d: { min: 1, max: 100000 }, 0x002e: { min: 1, max: 100000 }, 0x002f: { min: 1, max: 100000 },
  0x0030: { min: 1, max: 179 }, 0x0031: { min: 1, max: 65535 },
  0x0055: { min: 1, max: 180 }, 0x0056: { min: 1, max: 10000 }, 0x0057: { min: 1, max: 180 }, 0x0058: { min: 1, max: 10000 },
  0x0059: { min: 1, max: 10000 }, 0x005a: { min: 1, max: 100000 }, 0x005b: { min: 1, max: 65535 }, 0x005c: { min: 1, max: 65535 },
  0x0080: { min: 0, max: 99999999 }, 0x0083: { max: 16 }, 0x0084: { min: 0, max: 9 },
};

/** Link and identity parameters (the server's table marks the same ids). */
const GUARDED = new Set([
  0x0010, 0x0011, 0x0012, 0x0013, 0x0014, 0x0015, 0x0016, 0x0017, 0x0018, 0x0019, 0x0081, 0x0082, 0x0083, 0x0084,
]);

const group = (g: ParamGroup, type: ParamType, ids: number[], unit?: string): ParamDef[] =>
  ids.map((id) => ({ id, type, group: g, unit }));

export const PARAMS: ParamDef[] = [
  ...group('communication', 'DWORD', [0x0001, 0x0002, 0x0004, 0x0006], 's'),
  ...group('communication', 'DWORD', [0x0003, 0x0005, 0x0007], 'times'),
  ...group('server', 'STRING', [0x0010, 0x0011, 0x0012, 0x0013, 0x0014, 0x0015, 0x0016, 0x0017]),
  ...group('server', 'DWORD', [0x0018, 0x0019]),
  ...group('position', 'DWORD', [0x0020, 0x0021]),
  ...group('position', 'DWORD', [0x0022, 0x0027, 0x0028, 0x0029], 's'),
  ...group('position', 'DWORD', [0x002c, 0x002d, 0x002e, 0x002f], 'm'),
  ...group('position', 'DWORD', [0x0030], 'degree'),
  ...group('position', 'WORD', [0x0031], 'm'),
  ...group('alarm', 'DWORD', [0x0050, 0x0051, 0x0052, 0x0053, 0x0054]),
  ...group('alarm', 'DWORD', [0x0055], 'kmh'),
  ...group('alarm', 'DWORD', [0x0056, 0x0057, 0x0058, 0x0059, 0x005a], 's'),
  ...group('alarm', 'WORD', [0x005b], 'dkmh'),
  ...group('alarm', 'WORD', [0x005c], 's'),
  ...group('vehicle', 'DWORD', [0x0080], 'hm'),
  ...group('vehicle', 'WORD', [0x0081, 0x0082]),
  ...group('vehicle', 'STRING', [0x0083]),
  ...group('vehicle', 'BYTE', [0x0084]),
]
  .map((def) => ({
    ...def,
    ...(def.type === 'STRING' ? { max: 64 } : { min: 0, max: TYPE_MAX[def.type] }),
    ...RANGES[def.id],
    ...(GUARDED.has(def.id) ? { guard: true } : {}),
  }))
  .sort((a, b) => a.id - b.id);

export const PARAM_GROUPS: ParamGroup[] = ['communication', 'server', 'position', 'alarm', 'vehicle'];

export const paramById = new Map(PARAMS.map((def) => [def.id, def]));

/** One field of the alarm-configuration dialog (console-spec §5). */
export interface AlarmField {
  /** Form field name and key of `alarm.fields.*` / `alarm.required.*`. */
  name: string;
  paramId: number;
  min: number;
  max: number;
  unit: string;
  /** Shown value times this is the wire value (005B is in 1/10 km/h on the wire). */
  scale?: number;
}

export interface AlarmTab {
  key: 1 | 2 | 4 | 5 | 6;
  name: 'overspeed' | 'fatigue' | 'parking' | 'outOfBounds' | 'other';
  fields: AlarmField[];
}

/**
 * The spec's ranges (console-spec §5 table), in the unit the form shows. 0031, 005B and 005C take the spec's
 * 1-100000 although each is a WORD on the wire (005B in 1/10 km/h): the server refuses a value a terminal
 * cannot carry with the real maximum in this unit (api/command_params.py), never a silent clamp.
 */
export const ALARM_TABS: AlarmTab[] = [
  {
    key: 1,
    name: 'overspeed',
    fields: [
      { name: 'maxSpeed', paramId: 0x0055, min: 1, max: 180, unit: 'kmh' },
      { name: 'overspeedDuration', paramId: 0x0056, min: 1, max: 10000, unit: 's' },
    ],
  },
  {
    key: 2,
    name: 'fatigue',
    fields: [
      { name: 'continuousDriving', paramId: 0x0057, min: 1, max: 180, unit: 's' },
      { name: 'dailyDriving', paramId: 0x0058, min: 1, max: 10000, unit: 's' },
      { name: 'minRest', paramId: 0x0059, min: 1, max: 10000, unit: 's' },
      { name: 'fatigueWarning', paramId: 0x005c, min: 1, max: 100000, unit: 's' },
    ],
  },
  { key: 4, name: 'parking', fields: [{ name: 'maxParking', paramId: 0x005a, min: 1, max: 100000, unit: 's' }] },
  { key: 5, name: 'outOfBounds', fields: [{ name: 'illegalDisplacement', paramId: 0x0031, min: 1, max: 100000, unit: 'm' }] },
  { key: 6, name: 'other', fields: [{ name: 'overspeedWarning', paramId: 0x005b, min: 1, max: 100000, unit: 'kmh', scale: 10 }] },
];

export const ALARM_PARAM_IDS = ALARM_TABS.flatMap((tab) => tab.fields.map((f) => f.paramId));
