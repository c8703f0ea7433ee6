/**
 * Push 2 wherever the operator is (console-spec §6): a notification window and a spoken alert
 * (speechSynthesis in the console's language, or a beep where speech is missing) — each only when the
 * user's rule for the alarm's rule key allows it (`ruleKeyOf`: a fence alarm's is its kind's) and the
 * current hour is within its startHour..endHour.
 */
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { LiveHub } from '../../live/LiveHub';
import { useLiveHub } from '../../live/useLiveHub';
import { useNotice } from '../../components/notices/useNotice';
import { formatTime } from '../map/popup/format';
import { pushedAlarm } from './alarmPush';
import { speak } from './speech';
import type { NotifySettings } from './api';
import { alarmGate, ruleKeyOf } from './notifyRules';
import { useNotifySettings } from './useNotifySettings';

export default function AlarmNotices() {
  return <AlarmNoticesOf hub={useLiveHub()} settings={useNotifySettings()} />;
}

export function AlarmNoticesOf({ hub, settings, say = speak, now = () => new Date() }: {
  hub: Pick<LiveHub, 'onPush'> | null;
  settings: NotifySettings | null;
  say?: (text: string, lang: string) => void;
  now?: () => Date;
}) {
  const notify = useNotice();
  const { t, i18n } = useTranslation('alarm');
  const latest = useRef({ settings, say, now });
  useEffect(() => {
    latest.current = { settings, say, now };
  });
  useEffect(() => {
    if (!hub) return undefined;
    return hub.onPush((push) => {
      const alarm = pushedAlarm(push);
      if (!alarm) return;
      const ruleKey = ruleKeyOf(alarm);
      const gate = alarmGate(latest.current.settings, ruleKey, latest.current.now());
      const plate = alarm.plateNumber || '-';
      const desc = alarm.desc || alarm.key || '';
      if (gate.window) {
        notify({
          level: 'warning',
          key: `alarm-${String(alarm.id)}`,
          title: t('notify.title', { plate }),
          description: (
            <span data-testid="alarm-notice" data-alarm-id={String(alarm.id)} data-key={alarm.key ?? ''}>
              {desc}
              <br />
              {t('notify.time', { time: formatTime(alarm.startTime) })}
            </span>
          ),
        });
      }
      if (gate.voice) {
        const rule = latest.current.settings?.alarmRule[ruleKey ?? ''];
        latest.current.say(rule?.voice || t('notify.speak', { plate, desc }), i18n.language);
      }
    });
  }, [hub, notify, t, i18n]);
  return null;
}
