import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import AlarmTypeStats from '../../features/report/AlarmTypeStats';
import { alarmKeys, isSafetyKey } from '../../features/report/alarmKeys';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'deviceDayReport';

/** Report a1Alarm (not defined by the spec; the catalogue in docs/reports.md §4):
 * active-safety alarm statistics (ADAS, DSM, BSD, TPMS: alarm types 5-8) per type over the chosen days,
 * vehicles per type, the families' shares; each type opens its alarms. */
export default function A1AlarmScreen() {
  const { t } = useTranslation('report');
  const keys = useMemo(() => alarmKeys(t).filter(isSafetyKey), [t]);
  return <AlarmTypeStats keys={keys} families name="a1Alarm" />;
}
