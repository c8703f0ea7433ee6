/** How many columns of a description list fit its width (pure; `FitDescriptions` measures the width). */

/** The narrowest column: a label and a value with its unit ("Highest cell voltage  3.606 V (subsystem 1, no. 7)"
 * wraps at its words, never a character a line). */
export const MIN_COLUMN_WIDTH = 260;

/** Columns of at least ``minWidth`` px in ``width`` px, 1 to ``max``. */
export function fitColumns(width: number, max: number, minWidth: number = MIN_COLUMN_WIDTH): number {
  return Math.max(1, Math.min(max, Math.floor(width / minWidth)));
}
