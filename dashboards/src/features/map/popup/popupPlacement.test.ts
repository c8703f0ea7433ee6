import { describe, expect, it } from 'vitest';
import { POPUP_PADDING_BOTTOM_RIGHT, popupWidths } from './popupPlacement';

describe('vehicle popup placement', () => {
  it('keeps 380 px on a wide map and shrinks to the free room on a phone', () => {
    expect(popupWidths(1200)).toEqual({ minWidth: 280, maxWidth: 380 });
    expect(popupWidths(360)).toEqual({ minWidth: 240, maxWidth: 240 });
    expect(popupWidths(100).maxWidth).toBe(160);
  });

  it('keeps clear of the 48 px settings button on the right edge', () => {
    expect(POPUP_PADDING_BOTTOM_RIGHT[0]).toBeGreaterThan(48);
  });
});
