import { Card, Grid, Menu } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import BaseSettings from './BaseSettings';
import PasswordSettings from './PasswordSettings';

type Section = 'base' | 'security';

/** Account settings: profile (base) and password change (security). */
export default function AccountSettings() {
  const { t } = useTranslation('account');
  const screens = Grid.useBreakpoint();
  const [section, setSection] = useState<Section>('base');
  const horizontal = screens.md === false;
  return (
    <Card variant="borderless" data-testid="account-settings">
      <div style={{ display: 'flex', flexDirection: horizontal ? 'column' : 'row', gap: 24 }}>
        <Menu
          mode={horizontal ? 'horizontal' : 'inline'}
          selectedKeys={[section]}
          onClick={({ key }) => setSection(key as Section)}
          style={horizontal ? undefined : { width: 224 }}
          items={[
            { key: 'base', label: <span data-testid="settings-base">{t('settings.base')}</span> },
            { key: 'security', label: <span data-testid="settings-security">{t('settings.security')}</span> },
          ]}
        />
        <div style={{ flex: 1, minWidth: 0 }}>
          <h3>{t(section === 'base' ? 'settings.base' : 'settings.security')}</h3>
          {section === 'base' ? <BaseSettings /> : <PasswordSettings />}
        </div>
      </div>
    </Card>
  );
}
