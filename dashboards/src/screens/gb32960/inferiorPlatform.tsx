import { Tag, Tooltip } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import UnknownLoginsCard from '../../features/gb32960Exchange/UnknownLoginsCard';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

export const ENTITY = 'gb32960InferiorPlatform';

const STATE_COLOURS: Record<string, string> = { online: 'green', offline: 'default' };

/** The gb32960 data exchange's "inferiorPlatform" (platform-spec §2): the platforms that relay their vehicles' data
 * to us over GB/T 32960.3 (the GB gateway accepts their platform login 0x05 with this username and password, then
 * the frames of the vehicles of the owner's enterprise tree, by VIN); the password is write-only, and so are the AES-128 key
 * and IV it may encrypt its data units with (the gateway decrypts them; the list says whether a key is set). Each row shows its
 * link as the GB gateways last wrote it (every few seconds): online / offline since, address, last frame, frames
 * relayed, vehicles of the latest session and the last error (a refused login or VIN), its time in the tooltip.
 * Above the table, for a root enterprise's administrators, the logins refused for a username no platform has. */
export default function Gb32960InferiorPlatformScreen() {
  const { t } = useTranslation('nev');
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'nev:inferiorPlatform',
    columns: ['name', 'username', 'aesKeySet',
      { field: 'enabled', render: (value) => (value ? <Tag color="green">{t('inferiorPlatform.enums.enabled.true')}</Tag> : <Tag>{t('inferiorPlatform.enums.enabled.false')}</Tag>) },
      { field: 'linkState', render: (value, record) => (
        <Tooltip title={record.peer ? String(record.peer) : undefined}>
          <Tag color={STATE_COLOURS[String(value)] ?? 'default'} data-testid="gb32960-inferior-link-state" data-state={String(value)}>
            {t(`inferiorPlatform.enums.linkState.${String(value)}`, { defaultValue: String(value) })}
          </Tag>
        </Tooltip>) },
      'linkSince', 'lastFrameAt', 'frames', 'vehicles',
      { field: 'lastError', render: (value, record) => (value ? (
        <Tooltip title={record.lastErrorAt ? String(record.lastErrorAt) : undefined}>
          <Tag color="red" data-testid="gb32960-inferior-last-error" data-error={String(value)}>
            {t(`inferiorPlatform.enums.lastError.${String(value)}`, { defaultValue: String(value) })}
          </Tag>
        </Tooltip>) : null) },
      'remark'],
    filters: ['name', 'username', 'enabled', 'linkState'],
    form: ['name', 'username', 'password', 'aesKey', 'aesIv', 'enabled', 'remark'],
    features: { import: false },
    chart: () => <UnknownLoginsCard />,
  }), [t]);
  return <ListPage screen={screen} />;
}
