import type { TFunction } from 'i18next';

/**
 * Vehicle state bits of a position (JT/T 808-2019 table 24, platform-spec §9 "vehicle state bits 0-21"):
 * each bit has an on and an off description in the `log` namespace (`status.bit<N>.on|off`). Bits 6-7
 * are reserved; bits 8-9 are the load state (a two-bit value, `status.load.<value>`).
 */
export const STATUS_BITS = [0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21] as const;
const LOAD_SHIFT = 8;

export function bitSet(bits: number, bit: number): boolean {
  return ((bits >>> bit) & 1) === 1; // >>>: the 32-bit word read unsigned (bit 31 too)
}

/** The load state of bits 8-9: 0 empty, 1 half, 2 reserved, 3 full. */
export function loadState(bits: number): number {
  return (bits >>> LOAD_SHIFT) & 3;
}

export interface DescribeOptions {
  /** Every bit, set or not, with its on or off description (a popup); default: only the set bits. */
  all?: boolean;
}

/**
 * The descriptions of a position's state bits, in bit order: by default the "on" description of
 * every set bit (and the load state when not empty); with `all`, each bit's on or off description.
 */
export function describeStatus(bits: number | null | undefined, t: TFunction, options: DescribeOptions = {}): string[] {
  if (bits === null || bits === undefined || !Number.isFinite(bits)) return [];
  const found: string[] = [];
  for (const bit of STATUS_BITS) {
    const on = bitSet(bits, bit);
    if (on || options.all) found.push(t(`log:status.bit${bit}.${on ? 'on' : 'off'}`));
    if (bit === 5) {
      const load = loadState(bits);
      if (load !== 0 || options.all) found.push(t(`log:status.load.${load}`));
    }
  }
  return found;
}
