import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import AlarmTypeStats from '../../features/report/AlarmTypeStats';
import { alarmKeys } from '../../features/report/alarmKeys';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'deviceDayReport';

/** Platform-spec §2 report alarmOverview: every alarm type of the chosen days with its alarms, vehicles
 * and vehicle-days; each opens its alarms (alarmOverviewDetail). */
export default function AlarmOverviewScreen() {
  const { t } = useTranslation('report');
  const keys = useMemo(() => alarmKeys(t), [t]);
  return <AlarmTypeStats keys={keys} name="alarmOverview" />;
}
