import { Tag } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

export const ENTITY = 'gb32960ExchangeCar';

const STATE_COLOURS: Record<string, string> = { connected: 'green', connecting: 'gold', error: 'red', disconnected: 'default' };

/** The gb32960 data exchange's "car" (platform-spec §2): which vehicles are forwarded to which GB/T 32960 superior
 * platform, with that platform's link state. Read-only: the vehicles are chosen in the platform's form. */
export default function Gb32960CarScreen() {
  const { t } = useTranslation('nev');
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'nev:exchangeCar',
    columns: ['plateNumber', 'vin', 'platformName', 'version',
      { field: 'linkState', render: (value) => (
        <Tag color={STATE_COLOURS[String(value)] ?? 'default'} data-testid="gb32960-car-link-state" data-state={String(value)}>
          {t(`exchangeCar.enums.linkState.${String(value)}`, { defaultValue: String(value) })}
        </Tag>) },
      'linkSince', 'createdAt'],
    filters: ['platformId', 'plateNumber', 'vin'],
    features: { create: false, edit: false, delete: false, import: false, export: true },
  }), [t]);
  return <ListPage screen={screen} />;
}
