import { describe, expect, test } from 'vitest';
import { DEFAULT_SETTINGS, PALETTES, parseSettings } from '../model';

describe('layout settings', () => {
  test('there are 8 colour palettes and the default colour is one of them', () => {
    expect(PALETTES).toHaveLength(8);
    expect(PALETTES.map((p) => p.color)).toContain(DEFAULT_SETTINGS.primaryColor);
  });

  test('defaults: side layout, fixed sidebar, header not fixed, fluid width, multi-tab on, dark menu', () => {
    expect(parseSettings(null)).toEqual(DEFAULT_SETTINGS);
    expect(DEFAULT_SETTINGS).toMatchObject({
      layout: 'side',
      fixSiderbar: true,
      fixedHeader: false,
      contentWidth: 'fluid',
      multiTab: true,
      navTheme: 'dark',
    });
  });

  test('saved values are kept and invalid ones fall back one by one', () => {
    const parsed = parseSettings(
      JSON.stringify({ navTheme: 'night', layout: 'bogus', primaryColor: '#722ed1', fixedHeader: 'yes', animation: { effect: 'zoom' } }),
    );
    expect(parsed.navTheme).toBe('night');
    expect(parsed.layout).toBe('side');
    expect(parsed.primaryColor).toBe('#722ed1');
    expect(parsed.fixedHeader).toBe(false);
    expect(parsed.animation).toEqual({ ...DEFAULT_SETTINGS.animation, effect: 'zoom' });
  });

  test('unparseable storage gives the defaults', () => {
    expect(parseSettings('{oops')).toEqual(DEFAULT_SETTINGS);
  });
});
