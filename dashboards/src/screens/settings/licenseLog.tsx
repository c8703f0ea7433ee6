import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

export const ENTITY = 'licenceLog';

const day = (value: unknown) => (value ? String(value).slice(0, 10) : '');

/** Platform-spec §2 settings "licenseLog": licence installs and applications, newest first (read only). */
export default function LicenceLogScreen() {
  const { t } = useTranslation('settings');
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'settings:license.log',
    columns: ['createTime', { field: 'kind', render: (value) => t(`license.log.kinds.${String(value)}`) }, 'party', 'actor', 'vehicles',
      { field: 'validFrom', render: day }, { field: 'validTo', render: day }],
    filters: ['kind', 'party'],
    features: { create: false, edit: false, delete: false, import: false },
  }), [t]);
  return <ListPage screen={screen} />;
}
