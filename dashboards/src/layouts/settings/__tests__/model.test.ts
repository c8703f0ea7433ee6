import { describe, expect, test } from 'vitest';
import { DEFAULT_SETTINGS, PALETTES, RANDOM_THEME, STATUS_COLORS, parseSettings, randomThemeColor } from '../model';

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

  test('platform-spec §9: status colours success #52c41a, warning #faad14, error #f5222f; random theme on', () => {
    expect(STATUS_COLORS).toEqual({ success: '#52c41a', warning: '#faad14', error: '#f5222f' });
    expect(RANDOM_THEME).toBe(true);
  });

  test('the random theme colour is another palette colour, any of the other seven', () => {
    const picked = new Set([0, 0.2, 0.4, 0.6, 0.8, 0.9999].map((x) => randomThemeColor('#1890ff', () => x)));
    expect(picked.has('#1890ff')).toBe(false);
    for (const colour of picked) expect(PALETTES.map((p) => p.color)).toContain(colour);
    const all = new Set(Array.from({ length: 7 }, (_, i) => randomThemeColor('#1890ff', () => i / 7)));
    expect(all.size).toBe(7);
  });

  test('a saved colour is kept when platform-spec §5 accepts it, even outside the palettes; else the default', () => {
    expect(parseSettings(JSON.stringify({ primaryColor: 'rgb(0, 128, 0)' })).primaryColor).toBe('rgb(0, 128, 0)');
    expect(parseSettings(JSON.stringify({ primaryColor: '#0a0' })).primaryColor).toBe('#0a0');
    for (const bad of ['green', '#12', 'rgb(0, 300, 0)', 7]) {
      expect(parseSettings(JSON.stringify({ primaryColor: bad })).primaryColor).toBe(DEFAULT_SETTINGS.primaryColor);
    }
  });
});

