/**
 * Pushes 2 (alarm) and 13 (AI / active-safety alarm): data `{alarmId, deviceId, carId, plateNumber, type,
 * key, ruleKey, level, desc, startTime (epoch ms), lat, lng, speed, state, warnUuid, atted, driverName}`
 * (streams/alarms.py writes them, api/push.py delivers them), read into an `Alarm`.
 */
import type { PushMessage } from '../../live/types';
import type { Alarm } from './api';

export const PUSH_ALARM = 2;
export const PUSH_AI_ALARM = 13;

const text = (value: unknown): string | null => (typeof value === 'string' ? value : value == null ? null : String(value));
const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** The alarm a push of `type` announces; null for other pushes or one without an alarm id. */
export function pushedAlarm(push: PushMessage, type: number = PUSH_ALARM): Alarm | null {
  if (push.type !== type || !push.data) return null;
  const data = push.data;
  const id = data.alarmId ?? data._id ?? data.id;
  if (id === undefined || id === null || id === '') return null;
  return {
    id: id as number | string,
    enterpriseId: num(data.enterpriseId),
    enterpriseName: text(data.enterpriseName),
    deviceId: num(data.deviceId),
    carId: num(data.carId),
    plateNumber: text(data.plateNumber),
    driverName: text(data.driverName),
    lat: num(data.lat),
    lng: num(data.lng),
    speed: num(data.speed),
    address: text(data.address),
    startTime: (num(data.startTime) ?? text(data.startTime)) as number | string | null,
    atted: typeof data.atted === 'boolean' ? data.atted : null,
    warnUuid: text(data.warnUuid),
    type: num(data.type),
    key: text(data.key),
    ruleKey: text(data.ruleKey),
    level: num(data.level),
    state: num(data.state) ?? 0,
    opinion: null,
    desc: text(data.desc),
  };
}
