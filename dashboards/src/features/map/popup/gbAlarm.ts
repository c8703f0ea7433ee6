/**
 * A GB/T 32960 / GB 17691 track point's alarm object (pure; console-spec §3 "Track point", platform-spec §3/§9:
 * the alarm as an object of battery, motor, engine and other fault lists next to the 18-bit general flags;
 * 17691: the OBD fault codes and the MIL), as the track's `gbAlarm` field carries it
 * (warehouse/queries/track_alarms.py, streams/gb_frames.py `alarm_object`).
 */
import { faultCodeText } from '../../carDetail/obd/faultCodes';

/** The fault lists in the spec's order (strings `obd:trackAlarm.<name>`). */
export const GB_FAULT_LISTS = ['battery', 'motor', 'engine', 'other', 'obd'] as const;
export type GbFaultList = (typeof GB_FAULT_LISTS)[number];

export interface GbAlarmView {
  /** The standard's highest alarm level 0-3; null when absent, abnormal or invalid. */
  level: number | null;
  /** The non-empty fault lists, their codes as 0x and 8 hex digits. */
  lists: { name: GbFaultList; codes: string[] }[];
  mil: boolean;
}

const codesOf = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((c): c is number => Number.isInteger(c) && c >= 0).map(faultCodeText) : [];

/** What the popup shows of the object; null when there is nothing to show (no object, nothing set). */
export function gbAlarmView(item: Record<string, unknown> | null | undefined): GbAlarmView | null {
  if (!item) return null;
  const level = typeof item.level === 'number' && Number.isInteger(item.level) ? item.level : null;
  const lists = GB_FAULT_LISTS.map((name) => ({ name, codes: codesOf(item[name]) })).filter((list) => list.codes.length);
  const mil = item.mil === 1;
  return level === null && !lists.length && !mil ? null : { level, lists, mil };
}
