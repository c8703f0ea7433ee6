// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import i18n from '../../../i18n';
import { formatAge } from './format';

const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);
const t = (key: string, options?: Record<string, unknown>) => i18n.t(`map:${key}`, options);

describe('age of the last position', () => {
  it('reads 刚刚, N 分钟前, N 小时前, N 天前 in zh-CN', async () => {
    await i18n.changeLanguage('zh-CN');
    expect(formatAge(NOW - 20_000, NOW, t)).toBe('刚刚');
    expect(formatAge(NOW - 3 * 60_000 - 59_000, NOW, t)).toBe('3 分钟前');
    expect(formatAge(NOW - 2 * 3_600_000, NOW, t)).toBe('2 小时前');
    expect(formatAge(NOW - 3 * 86_400_000, NOW, t)).toBe('3 天前');
  });

  it('reads short units in en-US and traditional characters in zh-HK', async () => {
    await i18n.changeLanguage('en-US');
    expect(formatAge(NOW - 60_000, NOW, t)).toBe('1 min ago');
    expect(formatAge(NOW - 5 * 3_600_000, NOW, t)).toBe('5 h ago');
    expect(formatAge(NOW - 86_400_000, NOW, t)).toBe('1 d ago');
    await i18n.changeLanguage('zh-HK');
    expect(formatAge(NOW - 5 * 60_000, NOW, t)).toBe('5 分鐘前');
    await i18n.changeLanguage('zh-CN');
  });

  it('has no age without a fix, and a fix from the future is just now', () => {
    expect(formatAge(null, NOW, t)).toBe('-');
    expect(formatAge(0, NOW, t)).toBe('-');
    expect(formatAge(NOW + 90_000, NOW, t)).toBe(t('age.justNow'));
  });
});
