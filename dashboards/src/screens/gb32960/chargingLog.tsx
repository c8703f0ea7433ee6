import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';
import { formatDuration, initialFilters, READ_ONLY, useCarIdParam } from '../../features/log/logScreens';

export const ENTITY = 'gb32960ChargingLog';

/** The gb32960 charging log (platform-spec §2): each GB/T 32960 vehicle's charging sessions (charging state 1
 * parked / 2 driving charging, §4) with SOC from / to, energy and place, newest first, today by default; the
 * vehicle filter optional (the whole tree's sessions); `?carId=` preselects. Read-only, exportable. */
export default function ChargingLogScreen() {
  const { t } = useTranslation('log');
  const carId = useCarIdParam();
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'nev:chargingLog',
    columns: ['plateNumber', 'vin', 'chargingState', 'startTime', 'endTime',
      { field: 'durationS', render: (value) => formatDuration(value, t) },
      'socFrom', 'socTo', 'energyKwh', 'lng', 'lat'],
    filters: ['carId', 'chargingState', 'startTime'],
    requiredFilters: ['startTime'],
    initialFilters: initialFilters(carId, 'startTime'),
    features: READ_ONLY,
  }), [carId, t]);
  return <ListPage key={carId ?? 'none'} screen={screen} />;
}
