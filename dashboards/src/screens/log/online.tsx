import { useMemo } from 'react';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';
import { initialFilters, READ_ONLY, useCarIdParam } from '../../features/log/logScreens';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'onlineLog';

/** Online log: terminal online / offline transitions, newest first; a vehicle or the
 * whole enterprise, today by default; `?carId=` preselects the vehicle. */
export default function OnlineLogScreen() {
  const carId = useCarIdParam();
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'log:online',
    columns: ['time', 'plateNumber', 'devicePhone', 'state', 'reason'],
    filters: ['carId', 'time', 'state'],
    requiredFilters: ['time'],
    initialFilters: initialFilters(carId, 'time'),
    features: READ_ONLY,
  }), [carId]);
  return <ListPage key={carId ?? 'none'} screen={screen} />;
}
