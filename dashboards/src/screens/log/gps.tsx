import { useMemo } from 'react';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';
import { initialFilters, READ_ONLY, useCarIdParam } from '../../features/log/logScreens';
import StatusText from '../../features/log/StatusText';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'gpsLog';

/** GPS log: one vehicle's fixes in a time range (today by default), oldest first, with the
 * vehicle state bits described; `?carId=` preselects the vehicle. */
export default function GpsLogScreen() {
  const carId = useCarIdParam();
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'log:gps',
    columns: ['time', 'plateNumber', 'lng', 'lat', 'speed', 'direction', 'altitude', 'mileage', 'oilmass', 'acc', 'alarm',
      { field: 'state', render: (value) => <StatusText bits={value} /> }],
    filters: ['carId', 'time'],
    requiredFilters: ['carId', 'time'],
    initialFilters: initialFilters(carId, 'time'),
    features: READ_ONLY,
  }), [carId]);
  return <ListPage key={carId ?? 'none'} screen={screen} />;
}
