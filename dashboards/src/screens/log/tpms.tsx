import { useMemo } from 'react';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';
import { initialFilters, READ_ONLY, useCarIdParam } from '../../features/log/logScreens';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'tpmsLog';

/** TPMS log (platform-spec §2 Logs "tpms"): one vehicle's tyre readings in a time range (today by default),
 * oldest first, one row per tyre: 0x66 events with pressure (kPa), temperature (°C), battery (%) and
 * their alarm types named by the server in the user's language; 0x05 pressures as sent. `?carId=`
 * preselects the vehicle. */
export default function TpmsLogScreen() {
  const carId = useCarIdParam();
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'log:tpms',
    columns: ['time', 'plateNumber', 'item', 'tyre', 'pressure', 'temperature', 'battery', 'alarmNames',
      'pressureRaw', 'speed', 'lng', 'lat'],
    filters: ['carId', 'time', 'item'],
    requiredFilters: ['carId', 'time'],
    initialFilters: initialFilters(carId, 'time'),
    features: READ_ONLY,
  }), [carId]);
  return <ListPage key={carId ?? 'none'} screen={screen} />;
}
