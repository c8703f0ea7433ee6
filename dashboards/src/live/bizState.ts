/**
 * Vehicle business state (platform-spec §4): 0 offline, 1 driving, 2 parked/charging, 3 engine off,
 * 4 no signal (also the default when unknown). Values 1 to 3 count as online (console-spec §4).
 */
export const BIZ_OFFLINE = 0;
export const BIZ_DRIVING = 1;
export const BIZ_PARKED = 2;
export const BIZ_ENGINE_OFF = 3;
export const BIZ_NO_SIGNAL = 4;

/** Tree icon and marker colours: 0 gray, 1 green, 2 blue, 3 red, 4 yellow, 5 blue. */
const STATE_COLOURS: Record<number, string> = {
  0: '#8c8c8c',
  1: '#52c41a',
  2: '#1677ff',
  3: '#f5222d',
  4: '#faad14',
  5: '#1677ff',
};

export function stateColour(bizState: number | null | undefined): string {
  return STATE_COLOURS[bizState ?? BIZ_NO_SIGNAL] ?? STATE_COLOURS[BIZ_NO_SIGNAL];
}

export function normaliseBizState(value: unknown): number {
  if (value === null || value === undefined || value === '') return BIZ_NO_SIGNAL;
  const n = Number(value);
  return Number.isInteger(n) && n >= 0 && n <= 5 ? n : BIZ_NO_SIGNAL;
}

export function isOnlineBizState(bizState: number): boolean {
  return bizState >= BIZ_DRIVING && bizState <= BIZ_ENGINE_OFF;
}

/** Device state 3 is "online" (platform-spec §4 device state). */
export const DEVICE_STATE_ONLINE = 3;
