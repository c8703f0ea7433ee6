/**
 * The notify settings screen's rows (console-spec §3 "Notification settings", §6): one per alarm key,
 * the saved rule (features/alarm/api.ts toNotifySettings) or the default. Pure.
 */
import { DEFAULT_ALARM_RULE, type AlarmRule, type NotifySettings } from '../alarm/api';

export interface KeyedRule extends AlarmRule {
  alarmKey: string;
}

export const SWITCHES = ['carStateChangeWindowEnable', 'carRespCmdWindowEnable', 'uploadFileWindowEnable'] as const;
export type SwitchName = (typeof SWITCHES)[number];

/** Every key the screen lists: the catalogue's in its order, then keys with a saved rule it lacks. */
export function rowsFor(settings: Pick<NotifySettings, 'alarmRule'>, keys: string[]): KeyedRule[] {
  const all = [...new Set([...keys, ...Object.keys(settings.alarmRule)])];
  return all.map((alarmKey) => ({ alarmKey, ...(settings.alarmRule[alarmKey] ?? DEFAULT_ALARM_RULE) }));
}

function isDefault(rule: AlarmRule): boolean {
  return (Object.keys(DEFAULT_ALARM_RULE) as (keyof AlarmRule)[]).every((k) => (rule[k] ?? null) === (DEFAULT_ALARM_RULE[k] ?? null));
}

/** The PUT body: the switches and the rules saved before or differing from the default (voice trimmed,
 * an empty voice as null). */
export function payloadOf(rows: KeyedRule[], switches: Record<SwitchName, boolean>, saved: ReadonlySet<string>): Partial<NotifySettings> {
  const alarmRule: Record<string, AlarmRule> = {};
  for (const { alarmKey, ...rule } of rows) {
    const voice = rule.voice?.trim() || null;
    const clean = { ...rule, voice };
    if (saved.has(alarmKey) || !isDefault(clean)) alarmRule[alarmKey] = clean;
  }
  return { ...switches, alarmRule };
}

/** A rule's hours are acceptable as the server takes them (api/routes/alarms.py): whole hours, start 0-23,
 * end 1-24 (24 = end of day), start before end. */
export function hoursValid(rule: Pick<AlarmRule, 'startHour' | 'endHour'>): boolean {
  const { startHour: s, endHour: e } = rule;
  return Number.isInteger(s) && Number.isInteger(e) && s >= 0 && s <= 23 && e >= 1 && e <= 24 && s < e;
}
