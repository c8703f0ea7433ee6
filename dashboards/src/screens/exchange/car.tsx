import { useMemo } from 'react';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

export const ENTITY = 'exchangeCar';

/** Data exchange "car" (platform-spec §2): the vehicles inferior platforms reported over JT/T 809 (plate and colour
 * per platform, the 0x1201 registration, the last position). Read-only. */
export default function ExchangeCarScreen() {
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'inferior:car',
    columns: ['plate', 'plateColor', 'platformName', 'terminalModel', 'terminalId', 'sim', 'registeredAt', 'lastFixAt',
      'lng', 'lat', 'speedKmh'],
    filters: ['plate', 'platformId', 'lastFixAt'],
    features: { create: false, edit: false, delete: false, import: false, export: true },
  }), []);
  return <ListPage screen={screen} />;
}
