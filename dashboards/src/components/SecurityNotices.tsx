import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { securityNotice } from '../live/securityNotice';
import { useLiveHub } from '../live/useLiveHub';
import RegistrationDecision from './RegistrationDecision';
import { useNotice } from './notices/useNotice';

/**
 * Shows terminal security notices (push type 15) wherever the operator is: a takeover of a terminal needs
 * a human to look at it, so the toast stays longer than others (30 s) and the notice stays in the
 * notification centre under the bell, with its buttons, until the centre is cleared. A re-registration waiting for approval
 * carries approve / refuse (the server checks device:update and the enterprise).
 */
export default function SecurityNotices() {
  const hub = useLiveHub();
  const notify = useNotice();
  const { t } = useTranslation('layout');
  useEffect(() => {
    if (!hub) return undefined;
    return hub.onPush((push) => {
      const notice = securityNotice(push);
      if (!notice) return;
      notify({
        level: 'warning',
        title: t('security.title'),
        description: (
          <span data-testid="security-notice">
            {notice.event === 'other' ? notice.message : t(`security.${notice.event}`, { ...notice })}
            {notice.event === 'reregistration_pending' && notice.deviceId !== null && notice.requestId !== null && (
              <RegistrationDecision deviceId={notice.deviceId} requestId={notice.requestId} />
            )}
          </span>
        ),
        duration: 30,
      });
    });
  }, [hub, notify, t]);
  return null;
}
