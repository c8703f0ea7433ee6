import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import type { LiveHub } from '../../live/LiveHub';
import { useLiveHub } from '../../live/useLiveHub';
import { switchOn } from '../alarm/notifyRules';
import { currentNotifySettings } from '../alarm/useNotifySettings';
import { session } from '../../auth/session';
import { useNotice } from '../../components/notices/useNotice';
import { commandNotice, isOwnCommand, noticeLevel } from './commandPush';

/** The video stream commands: their success is the picture (or sound) itself, only failures are told. */
const QUIET_ON_SUCCESS = new Set(['9101', '9102', '9201', '9202']);

/**
 * Pushes 11 and 12 wherever the operator is: a notification naming the vehicle, the command and its
 * outcome (the dialog closed when the command was accepted; this is where its answer arrives), for the
 * commands this user sent: the platform's own (0x9208 after an alarm, 0x9102 of an idle stream) and other
 * operators' stay in the command records instead of piling up on every screen (the server addresses
 * the pushes to the sender's sessions; this check is the second line). Through the notification centre:
 * a toast that closes itself, kept under the bell.
 */
export default function CommandNotices() {
  return <CommandNoticesOf hub={useLiveHub()} />;
}

/** The notices of a given hub's pushes, for the layout and for tests. */
export function CommandNoticesOf({ hub, userId = () => session.get().user?.id }: {
  hub: Pick<LiveHub, 'onPush'> | null;
  userId?: () => number | null | undefined;
}) {
  const notify = useNotice();
  const { t } = useTranslation('command');
  useEffect(() => {
    if (!hub) return undefined;
    return hub.onPush((push) => {
      const notice = commandNotice(push);
      // The enterprise switch (console-spec §3 carRespCmdWindowEnable) turns these windows off.
      if (!notice || !isOwnCommand(notice, userId()) || !switchOn(currentNotifySettings(), 'carRespCmd')) return;
      if (notice.outcome === 'success' && QUIET_ON_SUCCESS.has(notice.msgId)) return;
      const command = t(`names.${notice.msgId}`, { defaultValue: `0x${notice.msgId}` });
      notify({
        level: noticeLevel(notice.outcome),
        title: t('notice.title', { vehicle: notice.vehicle }),
        description: (
          <span data-testid="command-notice" data-outcome={notice.outcome} data-command-id={notice.commandId ?? ''}>
            {t('notice.text', { command, outcome: t(`outcome.${notice.outcome}`) })}
          </span>
        ),
        key: notice.commandId !== null ? `command-${notice.commandId}` : undefined,
      });
    });
  }, [hub, notify, t, userId]);
  return null;
}
