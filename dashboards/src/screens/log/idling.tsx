import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';
import { formatDuration, initialFilters, READ_ONLY, replayAction, useCarIdParam } from '../../features/log/logScreens';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'idlingLog';

/** Idling log: a vehicle's idling (stopped with ACC on long enough), computed by the server from its fixes (fleet/stops.py),
 * newest first, today by default; each row opens the replay over its time; `?carId=` preselects. */
export default function IdlingLogScreen() {
  const { t } = useTranslation('log');
  const carId = useCarIdParam();
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'log:idling',
    columns: ['startTime', 'endTime',
      { field: 'durationS', render: (value, record) => `${formatDuration(value, t)}${record.ongoing ? ` ${t('log:ongoing')}` : ''}` },
      'plateNumber', 'address', 'lng', 'lat'],
    filters: ['carId', 'startTime'],
    requiredFilters: ['carId', 'startTime'],
    initialFilters: initialFilters(carId, 'startTime'),
    rowActions: [replayAction(t)],
    features: READ_ONLY,
  }), [carId, t]);
  return <ListPage key={carId ?? 'none'} screen={screen} />;
}
