import { Tag, Tooltip } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

export const ENTITY = 'gb32960SuperiorPlatform';

const STATE_COLOURS: Record<string, string> = { connected: 'green', connecting: 'gold', error: 'red', disconnected: 'default' };

/** The gb32960 data exchange's "superiorPlatform" (platform-spec §2): the superior platforms fleetwatch forwards
 * its new-energy vehicles' real-time data to over GB/T 32960.3 (address, port, the platform login's username,
 * password and encryption rule, the 2016 `##` or 2025 `$$` framing, which vehicles), each row with its link state and counts as
 * the link service last saved them; the password and the AES-128 key and IV (needed by the AES-128 rule) are write-only,
 * the list says whether a key is set. The gb32960 car screen lists the vehicles per platform. */
export default function Gb32960SuperiorPlatformScreen() {
  const { t } = useTranslation('nev');
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'nev:superiorPlatform',
    columns: ['name', 'host', 'port', 'username', 'encryption', 'aesKeySet', 'version',
      { field: 'enabled', render: (value) => (value ? <Tag color="green">{t('superiorPlatform.enums.enabled.true')}</Tag> : <Tag>{t('superiorPlatform.enums.enabled.false')}</Tag>) },
      { field: 'linkState', render: (value, record) => (
        <Tooltip title={record.lastError ? String(record.lastError) : undefined}>
          <Tag color={STATE_COLOURS[String(value)] ?? 'default'} data-testid="gb32960-link-state" data-state={String(value)}>
            {t(`superiorPlatform.enums.linkState.${String(value)}`, { defaultValue: String(value) })}
          </Tag>
        </Tooltip>) },
      'sent', 'backfilled', 'linkSince'],
    filters: ['name', 'host', 'version', 'enabled'],
    form: ['name', 'host', 'port', 'username', 'password', 'encryption', 'aesKey', 'aesIv', 'version', 'carIds', 'enabled', 'remark'],
    features: { import: false },
  }), [t]);
  return <ListPage screen={screen} />;
}
