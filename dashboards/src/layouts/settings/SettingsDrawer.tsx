import { CheckOutlined, CloseOutlined, CopyOutlined, SaveOutlined, SettingOutlined, SyncOutlined, UndoOutlined } from '@ant-design/icons';
import { App, Button, Divider, Drawer, Segmented, Select, Space, Switch, Tooltip } from 'antd';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ANIMATION_DIRECTIONS, ANIMATION_EFFECTS, clearSavedSettings, PALETTES, RANDOM_THEME, randomThemeColor, saveSettings, type LayoutSettings } from './model';
import { useLayoutSettings } from './SettingsContext';

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="settings-row">
      <span>{label}</span>
      {children}
    </div>
  );
}

/** The settings drawer (console-spec §2): changes apply at once; save keeps them in localStorage. */
export default function SettingsDrawer() {
  const { t } = useTranslation('layout');
  const { message, modal } = App.useApp();
  const { settings, update } = useLayoutSettings();
  const [open, setOpen] = useState(false);
  const set = <K extends keyof LayoutSettings>(key: K) => (value: LayoutSettings[K]) => update({ [key]: value } as Partial<LayoutSettings>);
  const setAnimation = (patch: Partial<LayoutSettings['animation']>) => update({ animation: { ...settings.animation, ...patch } });

  const copy = () =>
    navigator.clipboard.writeText(JSON.stringify(settings, null, 2)).then(
      () => message.success(t('settings.copied')),
      () => message.error(t('settings.copyFailed')),
    );
  const save = () => {
    saveSettings(settings);
    void message.success(t('settings.saved'));
  };
  const reset = () =>
    modal.confirm({
      title: t('settings.resetTitle'),
      content: t('settings.resetContent'),
      okText: t('common:ok'),
      cancelText: t('common:cancel'),
      onOk: () => {
        clearSavedSettings();
        window.location.reload();
      },
    });

  const options = <T extends string>(values: readonly T[], prefix: string) => values.map((value) => ({ value, label: t(`${prefix}.${value}`) }));

  return (
    <>
      {!settings.hideSetting && (
        // a header action like the bell and the language (console-spec §2 keeps the settings drawer); a
        // button floating over the page covered date pickers and photos at the screen's right edge
        <span className="header-action" data-testid="settings-toggle" onClick={() => setOpen(!open)} title={t('settings.title')}
          role="button" aria-label={t('settings.title')}>
          {open ? <CloseOutlined /> : <SettingOutlined />}
        </span>
      )}
      <Drawer title={t('settings.title')} open={open} onClose={() => setOpen(false)} size={320} data-testid="settings-drawer">
        <Divider titlePlacement="start">{t('settings.style')}</Divider>
        <Segmented block value={settings.navTheme} onChange={set('navTheme')} options={options(['dark', 'light', 'night'] as const, 'settings.navTheme')} />
        <Divider titlePlacement="start">{t('settings.themeColor')}</Divider>
        <Space wrap>
          {PALETTES.map(({ name, color }) => (
            <Tooltip key={name} title={t(`settings.colors.${name}`)}>
              <span className="settings-color" data-testid={`settings-color-${name}`} style={{ background: color }} onClick={() => update({ primaryColor: color })}>
                {settings.primaryColor === color && <CheckOutlined />}
              </span>
            </Tooltip>
          ))}
          {RANDOM_THEME && (
            <Button size="small" icon={<SyncOutlined />} data-testid="settings-random-theme"
              onClick={() => update({ primaryColor: randomThemeColor(settings.primaryColor) })}>
              {t('settings.randomTheme')}
            </Button>
          )}
        </Space>
        <Divider titlePlacement="start">{t('settings.navigation')}</Divider>
        <Segmented block value={settings.layout} onChange={set('layout')} options={options(['side', 'top', 'mix'] as const, 'settings.layout')} />
        <div>
          <Row label={t('settings.contentWidth')}>
            <Select size="small" style={{ width: 100 }} value={settings.contentWidth} onChange={set('contentWidth')} options={options(['fluid', 'fixed'] as const, 'settings.width')} />
          </Row>
          <Row label={t('settings.fixedHeader')}>
            <Switch size="small" checked={settings.fixedHeader} onChange={set('fixedHeader')} />
          </Row>
          <Row label={t('settings.fixSiderbar')}>
            <Switch size="small" checked={settings.fixSiderbar} disabled={settings.layout === 'top'} onChange={set('fixSiderbar')} />
          </Row>
        </div>
        <Divider titlePlacement="start">{t('settings.other')}</Divider>
        <div>
          <Row label={t('settings.colorWeak')}>
            <Switch size="small" checked={settings.colorWeak} onChange={set('colorWeak')} />
          </Row>
          <Row label={t('settings.multiTab')}>
            <Switch size="small" checked={settings.multiTab} onChange={set('multiTab')} data-testid="settings-multi-tab" />
          </Row>
          <Row label={t('settings.hideSetting')}>
            <Switch size="small" checked={settings.hideSetting} onChange={set('hideSetting')} />
          </Row>
          <Row label={t('settings.animationDisabled')}>
            <Switch size="small" checked={settings.animation.disabled} onChange={(disabled) => setAnimation({ disabled })} />
          </Row>
          <Row label={t('settings.animationEffect')}>
            <Select size="small" style={{ width: 100 }} disabled={settings.animation.disabled} value={settings.animation.effect} onChange={(effect) => setAnimation({ effect })} options={options(ANIMATION_EFFECTS, 'settings.effect')} />
          </Row>
          <Row label={t('settings.animationDirection')}>
            <Select size="small" style={{ width: 100 }} disabled={settings.animation.disabled} value={settings.animation.direction} onChange={(direction) => setAnimation({ direction })} options={options(ANIMATION_DIRECTIONS, 'settings.direction')} />
          </Row>
        </div>
        <Divider />
        <Space wrap>
          <Button icon={<CopyOutlined />} onClick={() => void copy()}>{t('settings.copy')}</Button>
          <Button type="primary" icon={<SaveOutlined />} onClick={save} data-testid="settings-save">{t('settings.save')}</Button>
          <Button danger icon={<UndoOutlined />} onClick={reset}>{t('settings.reset')}</Button>
        </Space>
      </Drawer>
    </>
  );
}
