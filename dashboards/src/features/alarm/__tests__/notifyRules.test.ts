import { describe, expect, test } from 'vitest';
import { toEffectiveRules, toNotifySettings, type NotifySettings } from '../api';
import { alarmGate, inHours, ruleKeyOf, switchOn } from '../notifyRules';

const at = (hour: number) => new Date(2026, 10, 25, hour, 30, 0);

const settings = (rules: Record<string, unknown>, switches: Record<string, boolean> = {}): NotifySettings =>
  toNotifySettings({ alarmRule: rules, carStateChangeWindowEnable: true, carRespCmdWindowEnable: true, uploadFileWindowEnable: true, ...switches });

describe('the hours window of an alarm rule', () => {
  test('runs from startHour inclusive to endHour exclusive', () => {
    expect(inHours(8, 8, 18)).toBe(true);
    expect(inHours(17, 8, 18)).toBe(true);
    expect(inHours(18, 8, 18)).toBe(false);
    expect(inHours(7, 8, 18)).toBe(false);
    expect(inHours(23, 0, 24)).toBe(true);
    expect(inHours(0, 0, 24)).toBe(true);
  });

  test('wraps past midnight when the start is after the end', () => {
    expect(inHours(23, 22, 6)).toBe(true);
    expect(inHours(3, 22, 6)).toBe(true);
    expect(inHours(6, 22, 6)).toBe(false);
    expect(inHours(12, 22, 6)).toBe(false);
  });
});

describe('whether a new alarm notifies', () => {
  const rules = settings({
    a0: { disabled: false, windowEnable: true, voiceEnable: true, voice: null, startHour: 8, endHour: 18 },
    a1: { disabled: true, windowEnable: true, voiceEnable: true, voice: null, startHour: 0, endHour: 24 },
    dsm_1: { disabled: false, windowEnable: false, voiceEnable: true, voice: '注意', startHour: 0, endHour: 24 },
  });

  test('inside the rule hours it shows the window and speaks as the rule says', () => {
    expect(alarmGate(rules, 'a0', at(9))).toEqual({ window: true, voice: true });
    expect(alarmGate(rules, 'dsm_1', at(9))).toEqual({ window: false, voice: true });
  });

  test('outside the rule hours it stays silent and shows nothing', () => {
    expect(alarmGate(rules, 'a0', at(7))).toEqual({ window: false, voice: false });
    expect(alarmGate(rules, 'a0', at(18))).toEqual({ window: false, voice: false });
  });

  test('a disabled key never notifies', () => {
    expect(alarmGate(rules, 'a1', at(12))).toEqual({ window: false, voice: false });
  });

  test('a key without a rule shows a window all day but does not speak', () => {
    expect(alarmGate(rules, 'adas_1', at(3))).toEqual({ window: true, voice: false });
    expect(alarmGate(null, 'adas_1', at(3))).toEqual({ window: true, voice: false });
  });
});

describe('the rule of a fence alarm', () => {
  const rules = settings({
    fence_enter: { disabled: false, windowEnable: false, voiceEnable: true, voice: '进入围栏', startHour: 0, endHour: 24 },
  });

  test('is the rule of its kind the server named in the push, not one of its own fence key', () => {
    const enter = { key: 'fence:12:enter', ruleKey: 'fence_enter' };
    expect(ruleKeyOf(enter)).toBe('fence_enter');
    expect(alarmGate(rules, ruleKeyOf(enter), at(9))).toEqual({ window: false, voice: true });
    // another fence's crossing of the same kind follows the same rule
    expect(alarmGate(rules, ruleKeyOf({ key: 'fence:7:enter', ruleKey: 'fence_enter' }), at(9))).toEqual({ window: false, voice: true });
    // a leave has a rule key of its own: without a rule it shows a window
    expect(alarmGate(rules, ruleKeyOf({ key: 'fence:12:leave', ruleKey: 'fence_leave' }), at(9))).toEqual({ window: true, voice: false });
  });

  test('a push without a rule key is governed by its own key', () => {
    expect(ruleKeyOf({ key: 'a0', ruleKey: null })).toBe('a0');
    expect(ruleKeyOf({ key: 'a0' })).toBe('a0');
  });
});

describe('the enterprise switches', () => {
  test('turn the other notices off one by one', () => {
    const off = settings({}, { carRespCmdWindowEnable: false });
    expect(switchOn(off, 'carRespCmd')).toBe(false);
    expect(switchOn(off, 'uploadFile')).toBe(true);
    expect(switchOn(off, 'carStateChange')).toBe(true);
    expect(switchOn(settings({}, { uploadFileWindowEnable: false }), 'uploadFile')).toBe(false);
    expect(switchOn(null, 'uploadFile')).toBe(true);
  });

  test('rules read from the list form (alarmLevelUserSettingRuleView rows with JSON text) too', () => {
    const parsed = toNotifySettings({ alarmRule: [{ alarmKey: 'a2', alarmRule: '{"disabled":true,"startHour":1,"endHour":5}' }] });
    expect(parsed.alarmRule.a2).toMatchObject({ disabled: true, startHour: 1, endHour: 5, windowEnable: true, source: 'user' });
  });

  test('an inherited rule gates like an own one and keeps where it came from', () => {
    const rows = toEffectiveRules([
      { alarmKey: 'a0', source: 'enterprise', alarmRule: { disabled: false, windowEnable: true, voiceEnable: true, voice: null, startHour: 8, endHour: 20 } },
    ]);
    expect(rows.a0.source).toBe('enterprise');
    const inherited = { ...settings({}), alarmRule: rows };
    expect(alarmGate(inherited, 'a0', at(9))).toEqual({ window: true, voice: true });
    expect(alarmGate(inherited, 'a0', at(21))).toEqual({ window: false, voice: false });
  });
});
