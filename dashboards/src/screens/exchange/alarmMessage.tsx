import { useMemo } from 'react';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';
import { READ_ONLY, todayRange } from '../../features/log/logScreens';

export const ENTITY = 'alarmMessage';

/** Data exchange "alarmMessage" (platform-spec §2): the alarms forwarded to the superior platforms (0x1402)
 * and the urgings they sent (0x9401), with the upper-platform alarm type (1-13, platform-spec §9) by name. */
export default function AlarmMessageScreen() {
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'exchange:alarmMessage',
    columns: ['time', 'platformName', 'dataType', 'plateNumber', 'warnType', 'warnTime', 'info', 'supervisionId', 'urgingDeadline'],
    filters: ['platformId', 'time', 'dataType', 'warnType', 'plateNumber'],
    filterKinds: { platformId: { kind: 'ref', entity: 'superiorPlatform' } },
    initialFilters: { time: todayRange() },
    features: READ_ONLY,
  }), []);
  return <ListPage screen={screen} />;
}
