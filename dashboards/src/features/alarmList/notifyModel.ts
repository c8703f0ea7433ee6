/**
 * The notify settings screen's rows (console-spec §3 "Notification settings", §6): one per alarm key with
 * the rule in effect and where it comes from (the user's own, the enterprise's default, or the built-in
 * default; features/alarm/api.ts), and the PUT body of what the user changed. Pure.
 */
import { DEFAULT_ALARM_RULE, type AlarmRule, type EffectiveRule, type NotifySettings } from '../alarm/api';

export interface KeyedRule extends EffectiveRule {
  alarmKey: string;
}

export const SWITCHES = ['carStateChangeWindowEnable', 'carRespCmdWindowEnable', 'uploadFileWindowEnable'] as const;
export type SwitchName = (typeof SWITCHES)[number];

const RULE_FIELDS = Object.keys(DEFAULT_ALARM_RULE) as (keyof AlarmRule)[];

/** Every key the screen lists: the catalogue's in its order, then keys with a rule it lacks. */
export function rowsFor(settings: Pick<NotifySettings, 'alarmRule'>, keys: string[]): KeyedRule[] {
  const all = [...new Set([...keys, ...Object.keys(settings.alarmRule)])];
  return all.map((alarmKey) => ({ alarmKey, ...(settings.alarmRule[alarmKey] ?? { ...DEFAULT_ALARM_RULE, source: 'default' as const }) }));
}

/** The rule part of a row (no key, no source), the voice trimmed and an empty one as null. */
export function ruleOf(row: AlarmRule): AlarmRule {
  const rule = Object.fromEntries(RULE_FIELDS.map((k) => [k, row[k]])) as unknown as AlarmRule;
  return { ...rule, voice: rule.voice?.trim() || null };
}

function sameRule(a: AlarmRule, b: AlarmRule): boolean {
  return RULE_FIELDS.every((k) => (a[k] ?? null) === (b[k] ?? null));
}

/** The PUT body: each row that differs from the rule it was loaded with becomes the user's own rule
 * (an inherited rule left alone stays inherited, so a later change of the enterprise's reaches the user). */
export function payloadOf(rows: KeyedRule[], loaded: readonly KeyedRule[]): { alarmRule: Record<string, AlarmRule> } {
  const before = new Map(loaded.map((row) => [row.alarmKey, ruleOf(row)]));
  const alarmRule: Record<string, AlarmRule> = {};
  for (const row of rows) {
    const rule = ruleOf(row);
    const was = before.get(row.alarmKey);
    if (!was || !sameRule(rule, was)) alarmRule[row.alarmKey] = rule;
  }
  return { alarmRule };
}

/** A rule's hours are acceptable as the server takes them (api/routes/alarms.py): whole hours, start 0-23,
 * end 1-24 (24 = end of day), start before end. */
export function hoursValid(rule: Pick<AlarmRule, 'startHour' | 'endHour'>): boolean {
  const { startHour: s, endHour: e } = rule;
  return Number.isInteger(s) && Number.isInteger(e) && s >= 0 && s <= 23 && e >= 1 && e <= 24 && s < e;
}
