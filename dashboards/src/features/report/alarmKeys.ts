/** The alarm keys (fleet/alarm_catalog.py; the report tables have one counter column per key) as the
 * console names them (alarmSettings:enums.alarmKey), and their families. */
import type { TFunction } from 'i18next';
import type { ListRecord } from '../list/types';
import { alarmName } from './charts/loaders';

/** A fence alarm kind's rule key (fleet/alarm_catalog.py FENCE_RULES: `fence_enter`, `tfence_leave`):
 * named in the same enum for the settings screens, but no alarm key and so no report counter. */
export const isFenceRuleKey = (key: string): boolean => /^t?fence_[a-z_]+$/.test(key);

/** The report counters' keys: every named key but the fence kinds' rule keys. */
export function alarmKeys(t: TFunction): string[] {
  const names = t('alarmSettings:enums.alarmKey', { returnObjects: true }) as unknown;
  return names && typeof names === 'object' ? Object.keys(names).filter((key) => !isFenceRuleKey(key)) : [];
}

/** Active safety: ADAS, DSM, BSD, TPMS (alarm types 5-8). */
export const isSafetyKey = (key: string): boolean => /^(adas|dsm|bsd|tpms)_\d+$/.test(key);
export const isDsmKey = (key: string): boolean => key.startsWith('dsm_');

export function keyOptions(t: TFunction, keys: readonly string[]) {
  return keys.map((value) => ({ value, label: alarmName(t, value) }));
}

/** A row's non-zero counters as text: "超速报警 ×3, 疲劳驾驶报警 ×1". */
export function breakdown(t: TFunction, record: ListRecord, keys: readonly string[]): string {
  return keys.filter((k) => Number(record[k]) > 0).map((k) => `${alarmName(t, k)} ×${String(record[k])}`).join(t('report:listSeparator'));
}
