import { App, Button, Card, Input, InputNumber, Result, Space, Spin, Switch, Table, type TableColumnsType } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAccess } from '../../auth/access';
import { fetchNotifySettings, saveNotifySettings, type AlarmRule } from '../alarm/api';
import { hoursValid, payloadOf, rowsFor, SWITCHES, type KeyedRule, type SwitchName } from './notifyModel';

type BoolField = 'disabled' | 'windowEnable' | 'voiceEnable';
const BOOL_FIELDS: BoolField[] = ['disabled', 'windowEnable', 'voiceEnable'];

/**
 * The user's alarm notification rules (console-spec §3, §6; `GET|PUT /api/alarm/notify/settings.json`):
 * per alarm key mute, window, voice, spoken text and hours; and the enterprise switches. Alarm keys and
 * names are the catalogue's (fleet/alarm_catalog.py, `alarmSettings:enums.alarmKey`).
 */
export default function NotifySettingsPanel() {
  const { t } = useTranslation(['alarmList', 'alarmSettings']);
  const { message } = App.useApp();
  const canSwitch = useAccess().can('enterprise', 'update'); // the server asks enterprise:update for the switches
  const names = useMemo(() => {
    const found: unknown = t('alarmSettings:enums.alarmKey', { returnObjects: true, defaultValue: {} });
    return (found && typeof found === 'object' ? found : {}) as Record<string, string>;
  }, [t]);
  const keys = useMemo(() => Object.keys(names), [names]);
  const [rows, setRows] = useState<KeyedRule[] | null>(null);
  const [saved, setSaved] = useState<Set<string>>(new Set());
  const [switches, setSwitches] = useState<Record<SwitchName, boolean> | null>(null);
  const [failed, setFailed] = useState(false);
  const [search, setSearch] = useState('');
  const [saving, setSaving] = useState(false);
  const [version, setVersion] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    void fetchNotifySettings(controller.signal).then((settings) => {
      if (controller.signal.aborted) return;
      if (!settings) {
        setFailed(true);
        return;
      }
      setSaved(new Set(Object.keys(settings.alarmRule)));
      setRows(rowsFor(settings, keys));
      setSwitches(Object.fromEntries(SWITCHES.map((name) => [name, settings[name]])) as Record<SwitchName, boolean>);
    });
    return () => controller.abort();
  }, [keys, version]);

  if (failed) return <Result status="warning" title={t('notify.loadFailed')} />;
  if (!rows || !switches) return <Spin style={{ display: 'block', margin: 48 }} />;

  const nameOf = (key: string) => names[key] ?? key;
  const edit = (key: string, change: Partial<AlarmRule>) => setRows((current) => (current ?? []).map((r) => (r.alarmKey === key ? { ...r, ...change } : r)));
  const save = async () => {
    const bad = rows.find((r) => !hoursValid(r));
    if (bad) {
      void message.error(t('notify.badHours', { alarm: nameOf(bad.alarmKey) }));
      return;
    }
    setSaving(true);
    try {
      const reply = await saveNotifySettings(payloadOf(rows, switches, saved));
      if (reply.code === 0) {
        void message.success(t('notify.saved'));
        setVersion((v) => v + 1);
      }
    } finally {
      setSaving(false);
    }
  };

  const hourInput = (field: 'startHour' | 'endHour', min: number, max: number) => (value: number, r: KeyedRule) => (
    <InputNumber size="small" min={min} max={max} precision={0} value={value} data-testid={`notify-${field}-${r.alarmKey}`}
      onChange={(v) => edit(r.alarmKey, { [field]: v ?? min })} style={{ width: 72 }} />
  );
  const columns: TableColumnsType<KeyedRule> = [
    { key: 'alarmKey', dataIndex: 'alarmKey', title: t('notify.alarmKey'), render: (key: string) => nameOf(key) },
    ...BOOL_FIELDS.map((field) => ({
      key: field, dataIndex: field, title: t(`notify.${field}`),
      render: (value: boolean, r: KeyedRule) => (
        <Switch size="small" checked={value} data-testid={`notify-${field}-${r.alarmKey}`} onChange={(checked) => edit(r.alarmKey, { [field]: checked })} />
      ),
    })),
    { key: 'voice', dataIndex: 'voice', title: t('notify.voice'), render: (value: string | null, r: KeyedRule) => (
      <Input size="small" maxLength={100} value={value ?? ''} data-testid={`notify-voice-${r.alarmKey}`} onChange={(e) => edit(r.alarmKey, { voice: e.target.value })} />
    ) },
    { key: 'startHour', dataIndex: 'startHour', title: t('notify.startHour'), render: hourInput('startHour', 0, 23) },
    { key: 'endHour', dataIndex: 'endHour', title: t('notify.endHour'), render: hourInput('endHour', 1, 24) },
  ];
  const needle = search.trim().toLowerCase();
  const shown = needle ? rows.filter((r) => r.alarmKey.toLowerCase().includes(needle) || nameOf(r.alarmKey).toLowerCase().includes(needle)) : rows;

  return (
    <Space orientation="vertical" size={12} style={{ width: '100%' }} data-testid="notify-settings">
      <Card size="small" title={t('notify.switches')}>
        <Space wrap size={24}>
          {SWITCHES.map((name) => (
            <Space key={name}>
              <span>{t(`notify.${name}`)}</span>
              <Switch checked={switches[name]} disabled={!canSwitch} data-testid={`notify-switch-${name}`} onChange={(checked) => setSwitches({ ...switches, [name]: checked })} />
            </Space>
          ))}
        </Space>
      </Card>
      <Card size="small" title={t('notify.rules')}
        extra={<Button type="primary" loading={saving} onClick={() => void save()} data-testid="notify-save">{t('notify.save')}</Button>}>
        <Input allowClear placeholder={t('notify.search')} style={{ width: 260, marginBottom: 8 }} data-testid="notify-search"
          onChange={(e) => setSearch(e.target.value)} />
        <Table<KeyedRule> size="small" rowKey="alarmKey" columns={columns} dataSource={shown} data-testid="notify-rules"
          pagination={{ defaultPageSize: 20, showSizeChanger: true }} />
      </Card>
    </Space>
  );
}
