import { FundProjectionScreenOutlined, ThunderboltOutlined } from '@ant-design/icons';
import { Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import AvatarMenu from '../components/AvatarMenu';
import LanguageSwitch from '../components/LanguageSwitch';
import NoticeBell from '../components/NoticeBell';
import SafetyQueueBadge from '../features/alarm/SafetyQueueBadge';
import { COCKPIT_PATH, NEV1_COCKPIT_PATH, openSameOrigin } from '../router/paths';

/** Header actions: the two cockpits (new browser tab), waiting safety alarms, notices, user menu, language. */
export default function RightContent() {
  const { t } = useTranslation('layout');
  return (
    <div className="header-right">
      <Tooltip title={t('cockpit.fleet')}>
        <span className="header-action" onClick={() => openSameOrigin(COCKPIT_PATH)} data-testid="open-cockpit">
          <FundProjectionScreenOutlined />
        </span>
      </Tooltip>
      <Tooltip title={t('cockpit.nev')}>
        <span className="header-action" onClick={() => openSameOrigin(NEV1_COCKPIT_PATH)} data-testid="open-cockpit-nev1">
          <ThunderboltOutlined />
        </span>
      </Tooltip>
      <SafetyQueueBadge />
      <NoticeBell />
      <AvatarMenu />
      <LanguageSwitch />
    </div>
  );
}
