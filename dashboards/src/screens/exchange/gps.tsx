import dayjs from 'dayjs';
import { useMemo } from 'react';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

export const ENTITY = 'exchangeGps';

/** Data exchange "gps" (platform-spec §2): the positions inferior platforms reported (0x1202 real-time, 0x1203
 * back-filled), newest first, in a time range (today by default). Read-only. */
export default function ExchangeGpsScreen() {
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'inferior:gps',
    columns: ['fixAt', 'plate', 'plateColor', 'lng', 'lat', 'speedKmh', 'directionDeg', 'altitudeM', 'backfilled', 'receivedAt'],
    filters: ['plate', 'fixAt', 'backfilled'],
    requiredFilters: ['fixAt'],
    initialFilters: { fixAt: [dayjs().startOf('day'), dayjs().endOf('day')] },
    features: { create: false, edit: false, delete: false, import: false, export: true },
  }), []);
  return <ListPage screen={screen} />;
}
