import { Tag } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import LinkStates from '../../features/exchange/LinkStates';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

export const ENTITY = 'superiorPlatform';

/** Data exchange "superiorPlatform" (platform-spec §2): the superior platforms fleetwatch forwards to over
 * JT/T 809, with each row's main and sub link state refreshed while the screen is open; the password is
 * write-only (never read back). */
export default function SuperiorPlatformScreen() {
  const { t } = useTranslation('exchange');
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'exchange:superiorPlatform',
    // port, user and access code are in the form: the row leaves its room to the two links' state
    columns: ['name', 'host', 'version',
      { field: 'enabled', render: (value) => (value ? <Tag color="green">{t('superiorPlatform.enums.enabled.true')}</Tag> : <Tag>{t('superiorPlatform.enums.enabled.false')}</Tag>) },
      { key: 'links', title: t('superiorPlatform.links'), width: 640, render: (_value, record) => <LinkStates platformId={Number(record.id)} /> }],
    filters: ['name', 'host', 'version', 'enabled'],
    form: ['name', 'host', 'port', 'userId', 'password', 'centreId', 'version', 'encrypted', 'm1', 'ia1', 'ic1', 'encryptKey',
      'downLinkHost', 'downLinkPort', 'positionInterval', 'exchangedEnterpriseIds', 'enabled', 'remark'],
    features: { import: false },
  }), [t]);
  return <ListPage screen={screen} />;
}
