import { LockOutlined, ReloadOutlined, UnlockOutlined } from '@ant-design/icons';
import { Affix, Dropdown, Tabs, Tooltip, type MenuProps } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { menuTitle } from '../../i18n/menuTitle';
import { TAB_AFFIX_DELAY_MS } from './events';
import { opensTab, type CloseCommand, type Tab } from './rules';
import { useTabs } from './TabsContext';

const COMMANDS: CloseCommand[] = ['closeCurrent', 'closeRight', 'closeLeft', 'closeOthers', 'closeAll'];

function TabLabel({ tab }: { tab: Tab }) {
  const { t } = useTranslation('layout');
  const { close, refresh, reloading } = useTabs();
  const items: MenuProps['items'] = [
    ...COMMANDS.map((command) => ({ key: command, label: <span data-testid={`tab-menu-${command}`}>{t(`tabs.${command}`)}</span> })),
    { type: 'divider' as const },
    { key: 'refresh', label: <span data-testid="tab-menu-refresh">{t('tabs.refresh')}</span> },
  ];
  const onClick: MenuProps['onClick'] = ({ key, domEvent }) => {
    domEvent.stopPropagation();
    if (key === 'refresh') refresh(tab.key);
    else close(key as CloseCommand, tab.key);
  };
  return (
    <Dropdown menu={{ items, onClick }} trigger={['contextMenu']}>
      <span data-testid={`tab-${tab.key}`} className="multi-tab-label">
        {menuTitle(t, tab.title)}
        <ReloadOutlined
          spin={!!reloading[tab.key]}
          className="multi-tab-refresh"
          data-testid={`tab-refresh-${tab.key}`}
          onClick={(event) => {
            event.stopPropagation();
            refresh(tab.key);
          }}
        />
      </span>
    </Dropdown>
  );
}

/** The multi-tab bar (console-spec §2): refresh and close icons, context menu, lock toggle. */
export default function MultiTabBar({ offsetTop }: { offsetTop: number }) {
  const { t } = useTranslation('layout');
  const navigate = useNavigate();
  const { state, close } = useTabs();
  // an exception page has no tab: no tab is active then, so a click on the last one opens it again
  const shownActive = opensTab(useLocation().pathname) ? state.activeKey : '';
  const [locked, setLocked] = useState(false);
  const [affixed, setAffixed] = useState(false);

  useEffect(() => {
    // Pinning waits out the affix delay; unlocking unpins at once.
    const timer = window.setTimeout(() => setAffixed(locked), locked ? TAB_AFFIX_DELAY_MS : 0);
    return () => window.clearTimeout(timer);
  }, [locked]);

  const lock = (
    <Tooltip title={t(locked ? 'tabs.unlock' : 'tabs.lock')}>
      <span className="multi-tab-lock" data-testid="tabs-lock" onClick={() => setLocked((value) => !value)}>
        {locked ? <LockOutlined /> : <UnlockOutlined />}
      </span>
    </Tooltip>
  );

  const bar = (
    <div className="multi-tab" data-testid="tabs-bar">
      <Tabs
        type="editable-card"
        hideAdd
        size="small"
        activeKey={shownActive}
        onChange={(key) => navigate(key)}
        onEdit={(key, action) => action === 'remove' && typeof key === 'string' && close('closeCurrent', key)}
        tabBarExtraContent={lock}
        items={state.tabs.map((tab) => ({
          key: tab.key,
          label: <TabLabel tab={tab} />,
          closable: tab.closable,
        }))}
      />
    </div>
  );
  return affixed ? <Affix offsetTop={offsetTop}>{bar}</Affix> : bar;
}
