import { FundProjectionScreenOutlined, ThunderboltOutlined } from '@ant-design/icons';
import { Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import AvatarMenu from '../components/AvatarMenu';
import LanguageSwitch from '../components/LanguageSwitch';
import NoticeBell from '../components/NoticeBell';
import { useSession } from '../auth/useSession';
import SafetyQueueBadge from '../features/alarm/SafetyQueueBadge';
import { COCKPIT_PATH, NEV1_COCKPIT_PATH, openSameOrigin } from '../router/paths';
import { routeHeld } from '../router/routeTable';
import SettingsDrawer from './settings/SettingsDrawer';

/**
 * Header actions: the two cockpits (new browser tab) when the user's route map holds them (a role
 * without the dashboard right, e.g. the live map alone, sees no cockpit icon), waiting safety alarms,
 * notices, user menu, language, the layout settings (in the header, so it covers nothing of the page).
 */
export default function RightContent() {
  const { t } = useTranslation('layout');
  const routes = useSession().user?.routes;
  return (
    <div className="header-right">
      {routeHeld(routes, COCKPIT_PATH) && (
        <Tooltip title={t('cockpit.fleet')}>
          <span className="header-action" onClick={() => openSameOrigin(COCKPIT_PATH)} data-testid="open-cockpit">
            <FundProjectionScreenOutlined />
          </span>
        </Tooltip>
      )}
      {routeHeld(routes, NEV1_COCKPIT_PATH) && (
        <Tooltip title={t('cockpit.nev')}>
          <span className="header-action" onClick={() => openSameOrigin(NEV1_COCKPIT_PATH)} data-testid="open-cockpit-nev1">
            <ThunderboltOutlined />
          </span>
        </Tooltip>
      )}
      <SafetyQueueBadge />
      <NoticeBell />
      <AvatarMenu />
      <LanguageSwitch />
      <SettingsDrawer />
    </div>
  );
}
