import { App } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { securityNotice } from '../live/securityNotice';
import { useLiveHub } from '../live/useLiveHub';
import RegistrationDecision from './RegistrationDecision';

/**
 * Shows terminal security notices (push type 15) wherever the operator is: they stay until closed,
 * because a takeover of a terminal needs a human to look at it. A re-registration waiting for approval
 * carries approve / refuse (the server checks device:update and the enterprise).
 */
export default function SecurityNotices() {
  const hub = useLiveHub();
  const { notification } = App.useApp();
  const { t } = useTranslation('layout');
  useEffect(() => {
    if (!hub) return undefined;
    return hub.onPush((push) => {
      const notice = securityNotice(push);
      if (!notice) return;
      notification.warning({
        title: t('security.title'),
        description: (
          <span data-testid="security-notice">
            {notice.event === 'other' ? notice.message : t(`security.${notice.event}`, { ...notice })}
            {notice.event === 'reregistration_pending' && notice.deviceId !== null && notice.requestId !== null && (
              <RegistrationDecision deviceId={notice.deviceId} requestId={notice.requestId} />
            )}
          </span>
        ),
        duration: 0,
      });
    });
  }, [hub, notification, t]);
  return null;
}
