/**
 * The one position shape on the wire (fleet/position_wire.py): named columns (`fields`) and rows. The
 * bulk last-positions read (POST /api/gps/last.json, one row per vehicle in scope: the server's device
 * state of every vehicle and the last fix of those that have one) and the live push
 * (/user/{enterpriseId}/positions, `{type: 'positions', fields, rows}`, which adds `sentAt`) are both
 * turned into hub states and live positions here, by `positionsFromRows`. Pure.
 */
import { BIZ_OFFLINE, normaliseBizState } from './bizState';
import type { LivePosition } from './types';
import type { VehicleState } from './vehicleStates';

export const LAST_POSITION_FIELDS = [
  'carId', 'deviceId', 'plateNumber', 'time', 'lng', 'lat', 'speed', 'direction', 'altitude', 'mileage',
  'oilmass', 'alarmType', 'status', 'online', 'bizState',
] as const;

export interface LastPositionsReply {
  fields: string[];
  rows: unknown[][];
  serverTime?: number;
}

export interface FleetSnapshot {
  states: [number, VehicleState][];
  positions: LivePosition[];
  serverTime: number | null;
}

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

export function snapshotFromReply(reply: LastPositionsReply): FleetSnapshot {
  return { ...positionsFromRows(reply.fields, reply.rows), serverTime: num(reply.serverTime) };
}

/** Device states and positions of columnar rows; columns are looked up by name (unknown ones ignored,
 * missing ones null), a row without a device id is skipped, one without a time or place gives a state
 * only. */
export function positionsFromRows(
  fields: readonly string[],
  rows: readonly unknown[][],
): Pick<FleetSnapshot, 'states' | 'positions'> {
  const column = new Map(fields.map((name, index) => [name, index]));
  const at = (row: unknown[], name: string): unknown => {
    const index = column.get(name);
    return index === undefined ? undefined : row[index];
  };
  const states: [number, VehicleState][] = [];
  const positions: LivePosition[] = [];
  for (const row of rows) {
    if (!Array.isArray(row)) continue;
    const deviceId = num(at(row, 'deviceId'));
    if (deviceId === null) continue;
    // `online` is the device's own state (DeviceState.ONLINE), never "has a position".
    const online = Number(at(row, 'online')) === 1;
    const bizState = online ? normaliseBizState(at(row, 'bizState')) : BIZ_OFFLINE;
    states.push([deviceId, { online, bizState }]);
    const timeMs = num(at(row, 'time'));
    const lng = num(at(row, 'lng'));
    const lat = num(at(row, 'lat'));
    if (timeMs === null || lng === null || lat === null) continue;
    const status = num(at(row, 'status')) ?? 0;
    const sentAtMs = num(at(row, 'sentAt'));
    positions.push({
      deviceId,
      carId: num(at(row, 'carId')),
      lng,
      lat,
      direction: num(at(row, 'direction')) ?? 0,
      speed: num(at(row, 'speed')) ?? 0,
      time: new Date(timeMs).toISOString(),
      timeMs,
      bizState,
      acc: status & 1,
      alarm: num(at(row, 'alarmType')) ?? 0,
      mileage: num(at(row, 'mileage')),
      oilmass: num(at(row, 'oilmass')),
      altitude: num(at(row, 'altitude')),
      ...(sentAtMs === null ? {} : { sentAtMs }),
    });
  }
  return { states, positions };
}
