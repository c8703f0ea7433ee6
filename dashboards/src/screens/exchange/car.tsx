import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import ExchangeVideoDialog from '../../features/exchangeInferior/ExchangeVideoDialog';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

export const ENTITY = 'exchangeCar';

/** Data exchange "car" (platform-spec §2): the vehicles inferior platforms reported over JT/T 809 (plate and colour
 * per platform, the 0x1201 registration, the last position). Read-only; holders of inferiorPlatform:superior watch
 * a vehicle's live video through its platform (JT/T 1078-2016 §8.2, ExchangeVideoDialog). */
export default function ExchangeCarScreen() {
  const { t } = useTranslation('inferior');
  const [watching, setWatching] = useState<{ id: number; plate: string } | null>(null);
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'inferior:car',
    columns: ['plate', 'plateColor', 'platformName', 'terminalModel', 'terminalId', 'sim', 'registeredAt', 'lastFixAt',
      'lng', 'lat', 'speedKmh'],
    filters: ['plate', 'platformId', 'lastFixAt'],
    features: { create: false, edit: false, delete: false, import: false, export: true },
    rowActions: [
      { key: 'video', action: 'superior', label: t('video.action'),
        onClick: (record) => setWatching({ id: Number(record.id), plate: String(record.plate) }) },
    ],
  }), [t]);
  return (
    <>
      <ListPage screen={screen} />
      <ExchangeVideoDialog vehicle={watching} onClose={() => setWatching(null)} />
    </>
  );
}
