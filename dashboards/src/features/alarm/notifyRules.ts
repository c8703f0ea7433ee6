/**
 * Whether an alarm notifies (console-spec §6): the rule in effect for its rule key (the user's own, else
 * the enterprise's default: the server resolves which; disabled, windowEnable, voiceEnable,
 * startHour..endHour; a key without any rule shows a window all day) — a window, the safety dialog and a
 * spoken alert only inside the rule's hours. An alarm's rule key is the one its push names (`ruleKeyOf`:
 * a fence alarm follows the rule of its kind, resolved on the server, never here). The enterprise switches
 * govern the other notices (state changes, command answers, uploaded files).
 */
import { DEFAULT_ALARM_RULE, type Alarm, type AlarmRule, type NotifySettings } from './api';

export interface AlarmGate {
  window: boolean;
  voice: boolean;
}

const NONE: AlarmGate = { window: false, voice: false };

/**
 * Whether `hour` (0-23) lies in the rule's hours: from startHour (0-23, inclusive) to endHour (1-24,
 * exclusive), as the API stores them (0..24 = all day); a start after the end wraps past midnight.
 */
export function inHours(hour: number, startHour: number, endHour: number): boolean {
  if (startHour <= endHour) return hour >= startHour && hour < endHour;
  return hour >= startHour || hour < endHour;
}

/** The key of the rule that governs `alarm`: the server's `ruleKey` (fleet/alarm_catalog.py `rule_key`),
 * else its own key. */
export function ruleKeyOf(alarm: Pick<Alarm, 'key' | 'ruleKey'>): string | null {
  return alarm.ruleKey || alarm.key;
}

export function ruleFor(settings: NotifySettings | null, key: string | null | undefined): AlarmRule {
  if (!settings || !key) return DEFAULT_ALARM_RULE;
  return settings.alarmRule[key] ?? DEFAULT_ALARM_RULE;
}

/** What a new alarm whose rule key is `key` (`ruleKeyOf`) may do at `now` (local time of the console). */
export function alarmGate(settings: NotifySettings | null, key: string | null | undefined, now: Date = new Date()): AlarmGate {
  const rule = ruleFor(settings, key);
  if (rule.disabled || !inHours(now.getHours(), rule.startHour, rule.endHour)) return NONE;
  return { window: rule.windowEnable, voice: rule.voiceEnable };
}

export type NoticeSwitch = 'carStateChange' | 'carRespCmd' | 'uploadFile';

/** The enterprise switch for a kind of notice (no settings read yet: on). */
export function switchOn(settings: NotifySettings | null, which: NoticeSwitch): boolean {
  if (!settings) return true;
  if (which === 'carStateChange') return settings.carStateChangeWindowEnable;
  if (which === 'carRespCmd') return settings.carRespCmdWindowEnable;
  return settings.uploadFileWindowEnable;
}
