import type { TFunction } from 'i18next';
import { describe, expect, it } from 'vitest';
import strings from '../../../locales/zh-CN/alarmSettings.json';
import { alarmKeys, isFenceRuleKey } from '../alarmKeys';

/** The one lookup alarmKeys makes: the named alarm keys of the zh-CN strings. */
const t = ((key: string) => (key === 'alarmSettings:enums.alarmKey' ? strings.enums.alarmKey : key)) as unknown as TFunction;

describe('the report counters\' alarm keys', () => {
  it('are the catalogue\'s named keys without the fence kinds\' rule keys, which no report counts', () => {
    const keys = alarmKeys(t);
    expect(keys.slice(0, 2)).toEqual(['a0', 'a1']);
    expect(keys).toContain('p_night');
    expect(keys.filter(isFenceRuleKey)).toEqual([]);
    const named = Object.keys(strings.enums.alarmKey);
    expect(named).toContain('fence_enter'); // named for the settings screens
    expect(named.length - keys.length).toBe(14); // 9 platform fence kinds + 5 of the terminal
  });

  it('tell a fence kind\'s rule key from an alarm key', () => {
    expect(['fence_enter', 'tfence_segment_long'].every(isFenceRuleKey)).toBe(true);
    expect(['a0', 'adas_1', 'p_overspeed', 'fence:12:enter'].some(isFenceRuleKey)).toBe(false);
  });
});
