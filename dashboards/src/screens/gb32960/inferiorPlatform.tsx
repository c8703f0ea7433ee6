import { Tag } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

/** The gb32960 data exchange's "inferiorPlatform" (platform-spec §2): the platforms that relay their vehicles' data
 * to us over GB/T 32960.3 (the GB gateway accepts their platform login 0x05 with this username and password, then
 * the frames of the vehicles of the owner's enterprise tree, by VIN); the password is write-only. */
export default function Gb32960InferiorPlatformScreen() {
  const { t } = useTranslation('nev');
  const screen = useMemo(() => defineListScreen({
    entity: 'gb32960InferiorPlatform',
    namespace: 'nev:inferiorPlatform',
    columns: ['name', 'username',
      { field: 'enabled', render: (value) => (value ? <Tag color="green">{t('inferiorPlatform.enums.enabled.true')}</Tag> : <Tag>{t('inferiorPlatform.enums.enabled.false')}</Tag>) },
      'remark', 'createdAt'],
    filters: ['name', 'username', 'enabled'],
    form: ['name', 'username', 'password', 'enabled', 'remark'],
    features: { import: false },
  }), [t]);
  return <ListPage screen={screen} />;
}
