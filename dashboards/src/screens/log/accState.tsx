import { useMemo } from 'react';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';
import { initialFilters, READ_ONLY, useCarIdParam } from '../../features/log/logScreens';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'accStateLog';

/** ACC state log (platform-spec §7 accStateLog): ACC on / off transitions, newest first;
 * a vehicle or the whole enterprise, today by default; `?carId=` preselects the vehicle. */
export default function AccStateLogScreen() {
  const carId = useCarIdParam();
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'log:accState',
    columns: ['createTime', 'plateNumber', 'devicePhone', 'state', 'lng', 'lat'],
    filters: ['carId', 'createTime', 'state'],
    requiredFilters: ['createTime'],
    initialFilters: initialFilters(carId, 'createTime'),
    features: READ_ONLY,
  }), [carId]);
  return <ListPage key={carId ?? 'none'} screen={screen} />;
}
