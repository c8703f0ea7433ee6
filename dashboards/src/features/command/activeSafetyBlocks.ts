/**
 * The active-safety parameter blocks of the Jiangsu layout (T/JSATL12-2017 §4.2): 0xF364 ADAS (56 bytes)
 * and 0xF365 DSM (49 bytes), each one terminal parameter read with 8106 and written with 8103.
 *
 * The server's declaration (protocols/jt808/messages/active_safety_params.py) is the one layout; this
 * mirrors its order, widths, ranges and units so the screen can show the terminal's block field by field
 * and check an edit before sending. The server checks every field again. Keys are the API's camelCase
 * names of the server's fields (api/command_params.py `block_field_key`).
 */

export type BlockKind = 'adas' | 'dsm';

export interface BlockField {
  key: string;
  /** Bytes on the wire: 1 BYTE, 2 WORD, 4 DWORD; any width for reserved bytes. */
  size: number;
  min: number;
  max: number;
  /** Key of `activeSafety.units.*`. */
  unit?: 'kmh' | 's' | 'm' | 'ms100';
  /** Reserved bytes: kept as read and sent back unchanged (hex). */
  reserved?: boolean;
  /** A bit mask (alarm / event enable): shown and edited as hex. */
  bits?: boolean;
  /** Heading of the field's group on the screen (`activeSafety.groups.*`). */
  group: string;
}

export interface ParamBlock {
  kind: BlockKind;
  id: number;
  idHex: string;
  size: number;
  fields: BlockField[];
}

const n = (group: string, key: string, size: number, min: number, max: number, unit?: BlockField['unit']): BlockField =>
  ({ key, size, min, max, unit, group });
const bits = (key: string): BlockField => ({ key, size: 4, min: 0, max: 0xffffffff, bits: true, group: 'general' });
const reserved = (key: string, size: number): BlockField => ({ key, size, min: 0, max: 0, reserved: true, group: 'general' });

/** One alarm's graded speed threshold, video length, photo count and photo interval. */
function alarm(prefix: string, photoIntervalMax = 10, photoMin = 0, speed = true): BlockField[] {
  return [
    ...(speed ? [n(prefix, `${prefix}SpeedThresholdKmh`, 1, 0, 220, 'kmh')] : []),
    n(prefix, `${prefix}VideoS`, 1, 0, 60, 's'),
    n(prefix, `${prefix}PhotoCount`, 1, photoMin, 10),
    n(prefix, `${prefix}PhotoInterval100ms`, 1, 1, photoIntervalMax, 'ms100'),
  ];
}

function common(timedMin: number, photoIntervalMax: number): BlockField[] {
  return [
    n('general', 'alarmSpeedThresholdKmh', 1, 0, 60, 'kmh'),
    n('general', 'alarmVolume', 1, 0, 8),
    n('general', 'photoStrategy', 1, 0, 3),
    n('general', 'timedPhotoIntervalS', 2, timedMin, timedMin ? 60000 : 3600, 's'),
    n('general', 'distancePhotoIntervalM', 2, 0, 60000, 'm'),
    n('general', 'photoCount', 1, 1, 10),
    n('general', 'photoInterval100ms', 1, 1, photoIntervalMax, 'ms100'),
    n('general', 'photoResolution', 1, 1, 6),
    n('general', 'videoResolution', 1, 1, 7),
  ];
}

function block(kind: BlockKind, id: number, fields: BlockField[]): ParamBlock {
  return { kind, id, idHex: id.toString(16).toUpperCase(), size: fields.reduce((sum, f) => sum + f.size, 0), fields };
}

export const BLOCKS: Record<BlockKind, ParamBlock> = {
  adas: block('adas', 0xf364, [
    ...common(0, 10),
    bits('alarmEnable'),
    bits('eventEnable'),
    reserved('reserved19', 1),
    n('obstacle', 'obstacleDistanceThreshold100ms', 1, 10, 50, 'ms100'),
    ...alarm('obstacle'),
    n('laneChange', 'laneChangePeriodS', 1, 30, 120, 's'),
    n('laneChange', 'laneChangeCount', 1, 3, 10),
    ...alarm('laneChange'),
    ...alarm('laneDeparture'),
    n('forwardCollision', 'forwardCollisionTimeThreshold100ms', 1, 10, 50, 'ms100'),
    ...alarm('forwardCollision'),
    n('pedestrianCollision', 'pedestrianCollisionTimeThreshold100ms', 1, 10, 50, 'ms100'),
    ...alarm('pedestrianCollision'),
    n('headway', 'headwayDistanceThreshold100ms', 1, 10, 50, 'ms100'),
    ...alarm('headway'),
    ...alarm('roadSign', 10, 0, false).slice(1),
    reserved('reserved52', 4),
  ]),
  dsm: block('dsm', 0xf365, [
    ...common(60, 5),
    bits('alarmEnable'),
    bits('eventEnable'),
    n('general', 'smokingCheckIntervalS', 2, 0, 3600, 's'),
    n('general', 'phoneCheckIntervalS', 2, 0, 3600, 's'),
    reserved('reserved23', 3),
    ...alarm('fatigue', 5),
    ...alarm('phone', 5, 1),
    ...alarm('smoking', 5, 1),
    ...alarm('distraction', 5),
    ...alarm('abnormalDriving', 5),
    n('driverId', 'driverIdTrigger', 1, 0, 3),
    reserved('reserved47', 2),
  ]),
};

/** Field values of a block: numbers, and reserved bytes as upper-case hex. */
export type BlockValues = Record<string, number | string>;

/** The block's hex (as terminal/params.json gives it) -> field values; null unless it is exactly the block's size. */
export function decodeBlock(block: ParamBlock, hex: string | undefined | null): BlockValues | null {
  if (!hex || !/^([0-9a-fA-F]{2})*$/.test(hex) || hex.length !== block.size * 2) return null;
  const values: BlockValues = {};
  let at = 0;
  for (const field of block.fields) {
    const chunk = hex.slice(at * 2, (at + field.size) * 2).toUpperCase();
    values[field.key] = field.reserved ? chunk : parseInt(chunk, 16);
    at += field.size;
  }
  return values;
}

/** All ones: the standard's "leave this parameter unchanged". */
export function keepValue(field: BlockField): number {
  return 2 ** (8 * field.size) - 1;
}

/** A key of `activeSafety.errors.*` when `value` does not fit the field, else null. */
export function checkBlockValue(field: BlockField, value: number): 'range' | null {
  if (!Number.isInteger(value)) return 'range';
  return (value >= field.min && value <= field.max) || value === keepValue(field) ? null : 'range';
}

/** "0x00010FFF" for a bit mask. */
export function bitsText(value: number): string {
  return `0x${value.toString(16).toUpperCase().padStart(8, '0')}`;
}

/** A bit mask typed as hex ("0x3", "00010FFF") -> its number; null when it is not 1 to 8 hex digits. */
export function parseBits(text: string): number | null {
  const match = /^(0x)?([0-9a-fA-F]{1,8})$/.exec(text.trim());
  return match ? parseInt(match[2], 16) : null;
}

/** The block as the 8103 `value` object: the read values with the edits applied, every field present. */
export function blockPayload(block: ParamBlock, read: BlockValues, edits: Record<string, number>): BlockValues {
  return Object.fromEntries(block.fields.map((f) => [f.key, f.key in edits ? edits[f.key] : read[f.key]]));
}
