/**
 * Typed calls for the alarm API (api/routes/alarms.py), through the one API client (its handler shows
 * any failure). Entities: `alarm` (all alarms in scope), `safetyAlarm` (types 5-8), `myAlarm`;
 * attachments are `deviceUploadFile` rows with `alarmId`.
 */
import { http } from '../../api/client';
import type { ApiReply } from '../../api/types';

/** An alarm row (console-spec §3 "Alarm"). Times are epoch ms or ISO text, as the API answers. */
export interface Alarm {
  id: number | string;
  _id?: number | string;
  enterpriseId: number | null;
  enterpriseName?: string | null;
  deviceId: number | null;
  carId: number | null;
  plateNumber: string | null;
  driverName: string | null;
  lat: number | null;
  lng: number | null;
  speed: number | null;
  address: string | null;
  startTime: number | string | null;
  endTime?: number | string | null;
  atted: boolean | null;
  /** The files the terminal announced with the alarm (its alarm number); they arrive one by one. */
  attachmentCount?: number | null;
  warnUuid: string | null;
  type: number | null;
  key: string | null;
  /** The key of the notification rule that governs the alarm, as the server resolved it (push 2 / 13
   * `ruleKey`, fleet/alarm_catalog.py `rule_key`): a fence alarm `fence:12:enter` follows its kind's rule
   * `fence_enter`; absent, the alarm's own key. */
  ruleKey?: string | null;
  level: number | null;
  /** 0 unhandled; else the handling state chosen (1 processing, 2 finished/ignored, 3 no action, 4 later). */
  state: number | null;
  opinion: string | null;
  confirmTime?: number | string | null;
  confirmUserId?: number | null;
  confirmName?: string | null;
  /** The deadline a superior platform's urging (JT/T 809 督办) put on the alarm; absent or null: none. */
  urgingDeadline?: number | string | null;
  desc?: string | null;
  fleetName?: string | null;
}

/** The handling states a user may choose (console-spec §4); 2 is the default. */
export const HANDLE_STATES = [1, 2, 3, 4] as const;
export type HandleState = (typeof HANDLE_STATES)[number];
export const DEFAULT_HANDLE_STATE: HandleState = 2;
export const OPINION_MAX = 250;
export const STATE_UNHANDLED = 0;
export const STATE_IGNORED = 2;
/** Alarm types 5 to 8 are active safety (ADAS, DSM, TPMS, BSD). */
export const ACTIVE_SAFETY_TYPES = { start: 5, end: 8 } as const;
export const isActiveSafety = (type: number | null | undefined): boolean =>
  typeof type === 'number' && type >= ACTIVE_SAFETY_TYPES.start && type <= ACTIVE_SAFETY_TYPES.end;

export type AlarmEntity = 'alarm' | 'safetyAlarm' | 'myAlarm';
export type AlarmConditions = Record<string, unknown>;

export interface Page<T> {
  list: T[];
  total?: number;
}

/** Epoch ms of today's midnight in China Standard Time (UTC+8): "counts are for the current day from midnight". */
export function todayStartMs(now: number = Date.now()): number {
  const CST_MS = 8 * 3600 * 1000;
  const DAY_MS = 24 * 3600 * 1000;
  return Math.floor((now + CST_MS) / DAY_MS) * DAY_MS - CST_MS;
}

export const alarmId = (alarm: Pick<Alarm, 'id' | '_id'>): string => String(alarm._id ?? alarm.id);

/** One page of alarms; `conditions` in the query grammar (`carId.eq`, `state.eq`, `startTime.gte`, ...). */
export async function queryAlarms(
  conditions: AlarmConditions,
  options: { entity?: AlarmEntity; pageNo?: number; pageSize?: number; orderBy?: string; desc?: boolean; countable?: boolean; signal?: AbortSignal } = {},
): Promise<Page<Alarm> | null> {
  const { entity = 'alarm', pageNo = 1, pageSize = 1, orderBy = 'startTime', desc = true, countable = false, signal } = options;
  const reply = await http.post<Page<Alarm> | null>(`/api/common/query/${entity}.json`, {
    params: { countable, pageNo, pageSize, orderBy, desc },
    body: conditions,
    signal,
  });
  return reply.code === 0 ? (reply.data ?? { list: [] }) : null;
}

/** One alarm by id, or null. */
export async function fetchAlarm(id: number | string, signal?: AbortSignal): Promise<Alarm | null> {
  const page = await queryAlarms({ 'id.eq': id }, { signal });
  return page?.list?.[0] ?? null;
}

/** The count of alarms matching `conditions`, or null when the call failed. */
export async function countAlarms(conditions: AlarmConditions, entity: AlarmEntity = 'alarm', signal?: AbortSignal): Promise<number | null> {
  const reply = await http.post<number | { total?: number; count?: number } | null>(`/api/common/count/${entity}.json`, {
    body: conditions,
    signal,
    quiet: true,
  });
  if (reply.code !== 0) return null;
  const data = reply.data;
  if (typeof data === 'number') return data;
  return Number(data?.total ?? data?.count ?? 0);
}

/** The conditions of "today's alarms of this car" (`unhandledOnly`: state 0), console-spec §4 navigation. */
export function todayCarConditions(carId: number | null, deviceId: number | null, unhandledOnly: boolean, now = Date.now()): AlarmConditions {
  const conditions: AlarmConditions = { 'startTime.gte': todayStartMs(now) };
  if (carId !== null) conditions['carId.eq'] = carId;
  else if (deviceId !== null) conditions['deviceId.eq'] = deviceId;
  if (unhandledOnly) conditions['state.eq'] = STATE_UNHANDLED;
  return conditions;
}

/** The `pageNo`-th (1-based) of today's unhandled active-safety alarms of the car, newest first. */
export async function fetchUnhandledAt(alarm: Pick<Alarm, 'carId' | 'deviceId'>, pageNo: number, signal?: AbortSignal): Promise<Page<Alarm> | null> {
  return queryAlarms(
    {
      ...todayCarConditions(alarm.carId, alarm.deviceId, true),
      rangeConditions: [{ fieldName: 'type', start: ACTIVE_SAFETY_TYPES.start, end: ACTIVE_SAFETY_TYPES.end }],
    },
    { pageNo, pageSize: 1, countable: true, signal },
  );
}

export interface ConfirmResult {
  alarm: Alarm;
  commandId: number | null;
}

/** Saves the handling (state 1-4, opinion <= 250); the server sends 8203 when the alarm is confirmable. */
export function confirmAlarm(id: number | string, state: HandleState, opinion: string): Promise<ApiReply<ConfirmResult | null>> {
  return http.post<ConfirmResult | null>(`/api/common/alarm/${encodeURIComponent(String(id))}/confirm.json`, {
    body: { state, opinion },
  });
}

/** Ignores the alarm: state 2, opinion "告警已忽略" unless given. */
export function ignoreAlarm(id: number | string, opinion?: string): Promise<ApiReply<Alarm | null>> {
  return http.post<Alarm | null>(`/api/common/alarm/${encodeURIComponent(String(id))}/ignore.json`, {
    body: opinion ? { opinion } : {},
  });
}

/** One user's rule for an alarm key (console-spec §3 "Notification settings"). */
export interface AlarmRule {
  disabled: boolean;
  windowEnable: boolean;
  voiceEnable: boolean;
  voice: string | null;
  startHour: number;
  endHour: number;
}

/** Where the rule in effect comes from: the user's own, the enterprise's default (their enterprise's or
 * its nearest ancestor's platformAlarmNotifyRule), or the built-in default (no rule at all). */
export type RuleSource = 'user' | 'enterprise' | 'default';

export interface EffectiveRule extends AlarmRule {
  source: RuleSource;
}

export interface NotifySettings {
  /** The rule in effect per alarm key; a key without one uses the built-in default (a window, no voice, all day). */
  alarmRule: Record<string, EffectiveRule>;
  carStateChangeWindowEnable: boolean;
  carRespCmdWindowEnable: boolean;
  uploadFileWindowEnable: boolean;
}

export const DEFAULT_ALARM_RULE: AlarmRule = {
  disabled: false,
  windowEnable: true,
  voiceEnable: false,
  voice: null,
  startHour: 0,
  endHour: 24,
};

const bool = (value: unknown, fallback: boolean): boolean => (typeof value === 'boolean' ? value : fallback);
const hour = (value: unknown, fallback: number): number => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);
const sourceOf = (value: unknown): RuleSource => (value === 'enterprise' ? 'enterprise' : value === 'default' ? 'default' : 'user');

/** A rule as stored (maybe partial, maybe JSON text) made whole. */
export function toAlarmRule(raw: unknown): AlarmRule {
  let value = raw;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      value = null;
    }
  }
  const rule = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  return {
    disabled: bool(rule.disabled, DEFAULT_ALARM_RULE.disabled),
    windowEnable: bool(rule.windowEnable, DEFAULT_ALARM_RULE.windowEnable),
    voiceEnable: bool(rule.voiceEnable, DEFAULT_ALARM_RULE.voiceEnable),
    voice: typeof rule.voice === 'string' ? rule.voice : null,
    startHour: hour(rule.startHour, DEFAULT_ALARM_RULE.startHour),
    endHour: hour(rule.endHour, DEFAULT_ALARM_RULE.endHour),
  };
}

/** The rules of an answer: a map of key -> rule (the settings GET, `source` inside each rule) or the
 * rows of alarmLevelUserSettingRuleView (`{alarmKey, alarmRule, source}`); no source means the user's own. */
export function toEffectiveRules(source: unknown): Record<string, EffectiveRule> {
  const rules: Record<string, EffectiveRule> = {};
  if (Array.isArray(source)) {
    for (const entry of source as Record<string, unknown>[]) {
      if (entry && typeof entry.alarmKey === 'string') rules[entry.alarmKey] = { ...toAlarmRule(entry.alarmRule ?? entry), source: sourceOf(entry.source) };
    }
  } else if (source && typeof source === 'object') {
    for (const [key, rule] of Object.entries(source)) {
      rules[key] = { ...toAlarmRule(rule), source: sourceOf((rule as Record<string, unknown> | null)?.source) };
    }
  }
  return rules;
}

/** The settings answer made whole (rules as a map or as a list of {alarmKey, alarmRule}). */
export function toNotifySettings(data: unknown): NotifySettings {
  const raw = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>;
  return {
    alarmRule: toEffectiveRules(raw.alarmRule ?? raw.rules),
    carStateChangeWindowEnable: bool(raw.carStateChangeWindowEnable, true),
    carRespCmdWindowEnable: bool(raw.carRespCmdWindowEnable, true),
    uploadFileWindowEnable: bool(raw.uploadFileWindowEnable, true),
  };
}

/**
 * The caller's rules in effect as console-spec §7 reads them: `POST
 * /api/common/query/alarmLevelUserSettingRuleView.json`, select alarmKey,alarmRule (and source: own or
 * inherited), page 1 of 1000, filter userId and alarmRule not null. Null when the call failed.
 */
export async function fetchNotifyRules(userId: number, signal?: AbortSignal): Promise<Record<string, EffectiveRule> | null> {
  const reply = await http.post<Page<Record<string, unknown>> | null>('/api/common/query/alarmLevelUserSettingRuleView.json', {
    params: { select: 'alarmKey,alarmRule,source', pageNo: 1, pageSize: 1000 },
    body: { 'userId.eq': userId, 'alarmRule.exists': true },
    signal,
    quiet: true,
  });
  return reply.code === 0 ? toEffectiveRules(reply.data?.list ?? []) : null;
}

/** The enterprise switches (and the rules the GET carries, which `fetchNotifySettings` replaces). */
async function fetchSwitches(signal?: AbortSignal): Promise<NotifySettings | null> {
  const reply = await http.get<unknown>('/api/alarm/notify/settings.json', { signal, quiet: true });
  return reply.code === 0 && reply.data ? toNotifySettings(reply.data) : null;
}

/** The caller's rules (alarmLevelUserSettingRuleView) and the enterprise switches (the settings GET);
 * null when either call failed or nobody is signed in. Read through `useNotifySettings`, the one holder. */
export async function fetchNotifySettings(userId: number | null | undefined, signal?: AbortSignal): Promise<NotifySettings | null> {
  if (userId == null) return null;
  const [rules, switches] = await Promise.all([fetchNotifyRules(userId, signal), fetchSwitches(signal)]);
  return rules && switches ? { ...switches, alarmRule: rules } : null;
}

/** Saves the caller's own rules (a rule of null removes it: the inherited one applies again) and, for
 * administrators, the switches. */
export function saveNotifySettings(settings: { alarmRule?: Record<string, AlarmRule | null> } & Partial<Omit<NotifySettings, 'alarmRule'>>): Promise<ApiReply<unknown>> {
  return http.put<unknown>('/api/alarm/notify/settings.json', { body: settings });
}

export type CountRange = 'today' | 'week' | 'month';

export interface AlarmCounts {
  alarmingVehicles: number;
  unhandled: number;
  activeSafety: number;
  byType: { key: string; desc: string; count: number }[];
}

/** The dashboard's alarm counters for a range; null when the call failed. */
export async function fetchAlarmCounts(range: CountRange, signal?: AbortSignal): Promise<AlarmCounts | null> {
  const reply = await http.get<AlarmCounts | null>('/api/dashboard/alarmCounts.json', { params: { range }, signal, quiet: true });
  if (reply.code !== 0 || !reply.data) return null;
  const data = reply.data;
  return {
    alarmingVehicles: Number(data.alarmingVehicles) || 0,
    unhandled: Number(data.unhandled) || 0,
    activeSafety: Number(data.activeSafety) || 0,
    byType: Array.isArray(data.byType) ? data.byType.map((row) => ({ key: String(row.key), desc: String(row.desc ?? row.key), count: Number(row.count) || 0 })) : [],
  };
}

/** An attachment of an alarm (a deviceUploadFile row). */
export interface AlarmAttachment {
  id: number | string;
  objectKey: string;
  fileStoreType: number | null;
  mediaType: number | null;
  fileName?: string | null;
  time?: number | string | null;
}

/** The attachments of an alarm, oldest first. */
export async function fetchAlarmAttachments(alarmIdValue: number | string, signal?: AbortSignal): Promise<AlarmAttachment[]> {
  const reply = await http.post<Page<AlarmAttachment> | null>('/api/common/query/deviceUploadFile.json', {
    params: { countable: false, pageNo: 1, pageSize: 50, orderBy: 'time', desc: false },
    body: { 'alarmId.eq': alarmIdValue },
    signal,
    quiet: true,
  });
  return reply.code === 0 ? (reply.data?.list ?? []) : [];
}
