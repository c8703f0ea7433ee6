import { describe, expect, it } from 'vitest';
import { fitColumns, MIN_COLUMN_WIDTH } from './fitColumns';

describe('fitColumns', () => {
  it('gives as many columns as fit, at most max', () => {
    expect(fitColumns(1110, 4)).toBe(4); // a card across the page at 1440 px
    expect(fitColumns(640, 4)).toBe(2); // the battery card beside the alarms
    expect(fitColumns(MIN_COLUMN_WIDTH * 3 - 1, 4)).toBe(2);
    expect(fitColumns(5000, 3)).toBe(3);
  });

  it('never gives fewer than one column (a phone, a card not laid out yet)', () => {
    expect(fitColumns(358, 4)).toBe(1);
    expect(fitColumns(0, 4)).toBe(1);
  });
});
