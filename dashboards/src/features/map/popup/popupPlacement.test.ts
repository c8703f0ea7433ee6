import { describe, expect, it } from 'vitest';
import { fitShift, POPUP_PADDING_BOTTOM_RIGHT, POPUP_PADDING_TOP_LEFT, popupMaxHeight, popupWidths } from './popupPlacement';

const map = { left: 0, top: 0, right: 400, bottom: 400 };
const [padLeft, padTop] = POPUP_PADDING_TOP_LEFT;
const [padRight, padBottom] = POPUP_PADDING_BOTTOM_RIGHT;

describe('vehicle popup placement', () => {
  it('keeps 380 px on a wide map and shrinks to the free room on a phone', () => {
    expect(popupWidths(1200)).toEqual({ minWidth: 280, maxWidth: 380 });
    expect(popupWidths(360)).toEqual({ minWidth: 240, maxWidth: 240 });
    expect(popupWidths(100).maxWidth).toBe(160);
  });

  it('keeps clear of the 48 px settings button on the right edge', () => {
    expect(POPUP_PADDING_BOTTOM_RIGHT[0]).toBeGreaterThan(48);
  });

  it('lets the content scroll rather than grow past a 400 px map pane', () => {
    const height = popupMaxHeight(400);
    expect(height).toBeLessThan(400 - padTop - padBottom);
    expect(height).toBeGreaterThanOrEqual(120);
    expect(popupMaxHeight(100)).toBe(120);
  });

  it('does not move a popup that fits', () => {
    expect(fitShift({ left: 100, top: 50, right: 300, bottom: 300 }, map)).toEqual([0, 0]);
  });

  it('moves a popup cut off at the top down into view', () => {
    expect(fitShift({ left: 100, top: -120, right: 300, bottom: 200 }, map)).toEqual([0, 120 + padTop]);
  });

  it('moves a popup cut off at the bottom or right up and left', () => {
    expect(fitShift({ left: 250, top: 300, right: 390, bottom: 450 }, map)).toEqual([400 - padRight - 390, 400 - padBottom - 450]);
  });

  it('keeps the top and left of a popup taller or wider than the room in view', () => {
    const [dx, dy] = fitShift({ left: -10, top: -200, right: 600, bottom: 600 }, map);
    expect(dy).toBe(200 + padTop);
    expect(dx).toBe(10 + padLeft);
  });
});
