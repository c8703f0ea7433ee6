import { describe, expect, it } from 'vitest';
import { visibleLabels } from '../declutter';

const box = (id: string, left: number, top: number, priority: number, width = 60, height = 18) =>
  ({ id, left, top, right: left + width, bottom: top + height, priority });

describe('stop labels at the fitted zoom', () => {
  it('shows labels that do not touch', () => {
    expect(visibleLabels([box('a', 0, 0, 1), box('b', 100, 0, 1), box('c', 0, 40, 1)])).toEqual(new Set(['a', 'b', 'c']));
  });

  it('of colliding labels shows the longest stop and hides the others', () => {
    const shown = visibleLabels([box('short', 10, 5, 60), box('long', 0, 0, 3600), box('mid', 30, 10, 600), box('far', 300, 300, 1)]);
    expect(shown).toEqual(new Set(['long', 'far']));
  });

  it('keeps a small gap between shown labels', () => {
    expect(visibleLabels([box('a', 0, 0, 2), box('b', 61, 0, 1)], 2)).toEqual(new Set(['a']));
    expect(visibleLabels([box('a', 0, 0, 2), box('b', 63, 0, 1)], 2)).toEqual(new Set(['a', 'b']));
  });
});
