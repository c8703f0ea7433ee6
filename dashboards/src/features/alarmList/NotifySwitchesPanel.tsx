import { App, Alert, Button, Card, Result, Space, Spin, Switch, Typography } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAccess } from '../../auth/access';
import { saveNotifySettings, type NotifySettings } from '../alarm/api';
import { reloadNotifySettings } from '../alarm/useNotifySettings';
import { SWITCHES, type SwitchName } from './notifyModel';

type Switches = Record<SwitchName, boolean>;

/**
 * The enterprise-wide notification switches (console-spec §3: carStateChangeWindowEnable,
 * carRespCmdWindowEnable, uploadFileWindowEnable), the platform-spec §2 settings screen
 * "messageNotifyRule": whether the console shows a window for a vehicle's state change, a command's answer
 * and an uploaded file. Everyone who sees alarms may read them; changing them needs enterprise:update,
 * which the server enforces too (`PUT /api/alarm/notify/settings.json`). Read and re-read through the
 * shared settings holder, so the notices follow at once.
 */
export default function NotifySwitchesPanel() {
  const { t } = useTranslation('alarmList');
  const { message } = App.useApp();
  const canChange = useAccess().can('enterprise', 'update');
  const [saved, setSaved] = useState<Switches | null>(null);
  const [edited, setEdited] = useState<Switches | null>(null);
  const [failed, setFailed] = useState(false);
  const [saving, setSaving] = useState(false);

  /** Shows the settings the shared holder read (null: the read failed). */
  const show = useCallback((settings: NotifySettings | null) => {
    if (!settings) {
      setFailed(true);
      return;
    }
    const switches = Object.fromEntries(SWITCHES.map((name) => [name, settings[name]])) as Switches;
    setSaved(switches);
    setEdited(switches);
  }, []);
  const load = useCallback(async () => show(await reloadNotifySettings()), [show]);

  useEffect(() => {
    let live = true;
    void reloadNotifySettings().then((settings) => {
      if (live) show(settings);
    });
    return () => {
      live = false;
    };
  }, [show]);

  if (failed) return <Result status="warning" title={t('notify.loadFailed')} />;
  if (!saved || !edited) return <Spin style={{ display: 'block', margin: 48 }} />;

  const changed = SWITCHES.some((name) => saved[name] !== edited[name]);
  const save = async () => {
    setSaving(true);
    try {
      const reply = await saveNotifySettings(edited);
      if (reply.code === 0) {
        void message.success(t('notify.saved'));
        await load();
      }
    } finally {
      setSaving(false);
    }
  };

  return (
    <Card size="small" title={t('notify.switches')} data-testid="message-notify-rule"
      extra={canChange && (
        <Button type="primary" loading={saving} disabled={!changed} onClick={() => void save()} data-testid="notify-switches-save">
          {t('notify.save')}
        </Button>
      )}>
      <Space orientation="vertical" size={16}>
        {!canChange && <Alert type="info" showIcon title={t('notify.switchesReadOnly')} data-testid="notify-switches-read-only" />}
        {SWITCHES.map((name) => (
          <Space key={name} size={12}>
            <Switch checked={edited[name]} disabled={!canChange} data-testid={`notify-switch-${name}`}
              onChange={(checked) => setEdited({ ...edited, [name]: checked })} />
            <span>{t(`notify.${name}`)}</span>
            <Typography.Text type="secondary">{t(`notify.hints.${name}`)}</Typography.Text>
          </Space>
        ))}
      </Space>
    </Card>
  );
}
