import { App, Button, Card, Input, InputNumber, Result, Space, Spin, Switch, Table, Tag, Tooltip, type TableColumnsType } from 'antd';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { saveNotifySettings, type AlarmRule, type NotifySettings, type RuleSource } from '../alarm/api';
import { reloadNotifySettings } from '../alarm/useNotifySettings';
import { hoursValid, payloadOf, rowsFor, type KeyedRule } from './notifyModel';

type BoolField = 'disabled' | 'windowEnable' | 'voiceEnable';
const BOOL_FIELDS: BoolField[] = ['disabled', 'windowEnable', 'voiceEnable'];
const SOURCE_COLOURS: Record<RuleSource, string> = { user: 'blue', enterprise: 'gold', default: 'default' };
/** Where the enterprise-wide switches are edited (route map: /setting/messageNotifyRule). */
export const SWITCHES_PATH = '/setting/messageNotifyRule';

/**
 * The user's alarm notification rules (console-spec §3, §6): per alarm key mute, window, voice, spoken
 * text and hours, each row saying whether the rule is the user's own or inherited from the enterprise
 * (or the built-in default). Read through the shared settings holder (`reloadNotifySettings`: the rules of
 * alarmLevelUserSettingRuleView), saved with `PUT /api/alarm/notify/settings.json`; a changed row becomes
 * the user's own, "use inherited" removes it. Alarm keys and names are the catalogue's
 * (fleet/alarm_catalog.py, `alarmSettings:enums.alarmKey`).
 */
export default function NotifySettingsPanel() {
  const { t } = useTranslation(['alarmList', 'alarmSettings']);
  const { message } = App.useApp();
  const names = useMemo(() => {
    const found: unknown = t('alarmSettings:enums.alarmKey', { returnObjects: true, defaultValue: {} });
    return (found && typeof found === 'object' ? found : {}) as Record<string, string>;
  }, [t]);
  const keys = useMemo(() => Object.keys(names), [names]);
  const [loaded, setLoaded] = useState<KeyedRule[] | null>(null);
  const [rows, setRows] = useState<KeyedRule[] | null>(null);
  const [failed, setFailed] = useState(false);
  const [search, setSearch] = useState('');
  const [saving, setSaving] = useState(false);

  /** Shows the rules in effect the shared holder read (null: the read failed). */
  const show = useCallback((settings: NotifySettings | null) => {
    if (!settings) {
      setFailed(true);
      return;
    }
    const fresh = rowsFor(settings, keys);
    setLoaded(fresh);
    setRows(fresh);
  }, [keys]);
  /** Reads them afresh through the one holder (so every notice follows) and shows them. */
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
  if (!rows || !loaded) return <Spin style={{ display: 'block', margin: 48 }} />;

  const nameOf = (key: string) => names[key] ?? key;
  const edit = (key: string, change: Partial<AlarmRule>) => setRows((current) => (current ?? []).map((r) => (r.alarmKey === key ? { ...r, ...change } : r)));
  const put = async (body: { alarmRule: Record<string, AlarmRule | null> }) => {
    setSaving(true);
    try {
      const reply = await saveNotifySettings(body);
      if (reply.code === 0) {
        void message.success(t('notify.saved'));
        await load();
      }
    } finally {
      setSaving(false);
    }
  };
  const save = async () => {
    const bad = rows.find((r) => !hoursValid(r));
    if (bad) {
      void message.error(t('notify.badHours', { alarm: nameOf(bad.alarmKey) }));
      return;
    }
    await put(payloadOf(rows, loaded));
  };

  const hourInput = (field: 'startHour' | 'endHour', min: number, max: number) => (value: number, r: KeyedRule) => (
    <InputNumber size="small" min={min} max={max} precision={0} value={value} data-testid={`notify-${field}-${r.alarmKey}`}
      onChange={(v) => edit(r.alarmKey, { [field]: v ?? min })} style={{ width: 72 }} />
  );
  const columns: TableColumnsType<KeyedRule> = [
    { key: 'alarmKey', dataIndex: 'alarmKey', title: t('notify.alarmKey'), render: (key: string) => nameOf(key) },
    { key: 'source', dataIndex: 'source', title: t('notify.source'), render: (source: RuleSource, r: KeyedRule) => (
      <Space size={4}>
        <Tag color={SOURCE_COLOURS[source]} data-testid={`notify-source-${r.alarmKey}`} data-source={source}>{t(`notify.sources.${source}`)}</Tag>
        {source === 'user' && (
          <Tooltip title={t('notify.inheritHint')}>
            <Button size="small" type="link" disabled={saving} data-testid={`notify-inherit-${r.alarmKey}`}
              onClick={() => void put({ alarmRule: { [r.alarmKey]: null } })}>{t('notify.inherit')}</Button>
          </Tooltip>
        )}
      </Space>
    ) },
    ...BOOL_FIELDS.map((field) => ({
      key: field, dataIndex: field, title: t(`notify.${field}`),
      render: (value: boolean, r: KeyedRule) => (
        <Switch size="small" checked={value} data-testid={`notify-${field}-${r.alarmKey}`} onChange={(checked) => edit(r.alarmKey, { [field]: checked })} />
      ),
    })),
    { key: 'voice', dataIndex: 'voice', title: t('notify.voice'), render: (value: string | null, r: KeyedRule) => (
      <Input size="small" maxLength={64} value={value ?? ''} data-testid={`notify-voice-${r.alarmKey}`} onChange={(e) => edit(r.alarmKey, { voice: e.target.value })} />
    ) },
    { key: 'startHour', dataIndex: 'startHour', title: t('notify.startHour'), render: hourInput('startHour', 0, 23) },
    { key: 'endHour', dataIndex: 'endHour', title: t('notify.endHour'), render: hourInput('endHour', 1, 24) },
  ];
  const needle = search.trim().toLowerCase();
  const shown = needle ? rows.filter((r) => r.alarmKey.toLowerCase().includes(needle) || nameOf(r.alarmKey).toLowerCase().includes(needle)) : rows;

  return (
    <Space orientation="vertical" size={12} style={{ width: '100%' }} data-testid="notify-settings">
      <Card size="small" title={t('notify.rules')}
        extra={<Button type="primary" loading={saving} onClick={() => void save()} data-testid="notify-save">{t('notify.save')}</Button>}>
        <Space wrap style={{ marginBottom: 8 }}>
          <Input allowClear placeholder={t('notify.search')} style={{ width: 260 }} data-testid="notify-search"
            onChange={(e) => setSearch(e.target.value)} />
          <Link to={SWITCHES_PATH} data-testid="notify-switches-link">{t('notify.switchesLink')}</Link>
        </Space>
        <Table<KeyedRule> size="small" rowKey="alarmKey" columns={columns} dataSource={shown} data-testid="notify-rules"
          pagination={{ defaultPageSize: 20, showSizeChanger: true }} />
      </Card>
    </Space>
  );
}
