// @vitest-environment jsdom
import dayjs from 'dayjs';
import i18n from 'i18next';
import { afterEach, describe, expect, test } from 'vitest';
import '../../../i18n';
import { missingFilters } from '../../list/model';
import { formatDuration, initialFilters, replayHref, todayRange } from '../logScreens';
import { bitSet, describeStatus, loadState, STATUS_BITS } from '../statusBits';

const t = i18n.t.bind(i18n);
afterEach(async () => {
  await i18n.changeLanguage('zh-CN');
});

describe('describeStatus (JT/T 808-2019 table 24)', () => {
  test('names the set bits in bit order', () => {
    const bits = (1 << 0) | (1 << 1) | (1 << 13) | (1 << 19);
    expect(describeStatus(bits, t)).toEqual(['ACC开', '已定位', '门1开(前门)', '使用北斗定位']);
  });

  test('every bit 0-21 but the reserved 6-9 has an on and an off text in each language', async () => {
    expect(STATUS_BITS).toEqual([0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21]);
    for (const lang of ['zh-CN', 'zh-HK', 'en-US']) {
      await i18n.changeLanguage(lang);
      expect(i18n.language).toBe(lang);
      const all = describeStatus(0, t, { all: true });
      expect(all).toHaveLength(STATUS_BITS.length + 1); // + the load state
      expect(all.every((text) => !text.startsWith('status.') && !text.includes('log:'))).toBe(true);
      const on = describeStatus(0x3ffc3f, t, { all: true });
      expect(new Set(on).size).toBe(on.length);
      expect(on).not.toEqual(all);
    }
  });

  test('with all, unset bits read as off; in English', async () => {
    await i18n.changeLanguage('en-US');
    const texts = describeStatus(1 << 1, t, { all: true });
    expect(texts.slice(0, 4)).toEqual(['ACC off', 'Positioned', 'North latitude', 'East longitude']);
    expect(texts).toContain('Empty');
  });

  test('the load state is bits 8-9 and shown when not empty', () => {
    expect(loadState(3 << 8)).toBe(3);
    expect(describeStatus(3 << 8, t)).toEqual(['满载']);
    expect(describeStatus(1 << 8, t)).toEqual(['半载']);
  });

  test('bit 31 and missing values', () => {
    expect(bitSet(0x80000000, 31)).toBe(true);
    expect(describeStatus(null, t)).toEqual([]);
    expect(describeStatus(undefined, t)).toEqual([]);
    expect(describeStatus(0, t)).toEqual([]);
  });
});

describe('log screens', () => {
  test('a log opens on today and the vehicle of the URL', () => {
    const [start, end] = todayRange(dayjs('2026-11-24T15:30:00'));
    expect(start.format('YYYY-MM-DD HH:mm:ss')).toBe('2026-11-24 00:00:00');
    expect(end.format('YYYY-MM-DD HH:mm:ss')).toBe('2026-11-24 23:59:59');
    expect(Object.keys(initialFilters(7, 'time'))).toEqual(['carId', 'time']);
    expect(Object.keys(initialFilters(undefined, 'startTime'))).toEqual(['startTime']);
  });

  test('no query until the required filters have values', () => {
    expect(missingFilters(['carId', 'time'], {})).toEqual(['carId', 'time']);
    expect(missingFilters(['carId', 'time'], { 'carId.eq': 3 })).toEqual(['time']);
    expect(missingFilters(['carId', 'time'], { 'carId.eq': 3, rangeConditions: [{ fieldName: 'time' }] })).toEqual([]);
    expect(missingFilters(undefined, {})).toEqual([]);
  });

  test('durations and the replay link of a stop', async () => {
    expect(formatDuration(3723, t)).toBe('1小时2分3秒');
    expect(formatDuration(125, t)).toBe('2分5秒');
    await i18n.changeLanguage('en-US');
    expect(formatDuration(60, t)).toBe('1 min 0 s');
    expect(replayHref({ carId: 5, startTime: '2026-04-10T23:55:00+00:00', endTime: '2026-04-11T00:10:00+00:00' }))
      .toBe('/dashboard/trace?carId=5&start=1775865300000&end=1775866200000');
  });
});
