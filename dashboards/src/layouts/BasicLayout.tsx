import { Drawer, Grid, Layout } from 'antd';
import { useMemo, useState } from 'react';
import { useSession } from '../auth/useSession';
import SecurityNotices from '../components/SecurityNotices';
import AlarmNotices from '../features/alarm/AlarmNotices';
import SafetyAlarmDialog from '../features/alarm/SafetyAlarmDialog';
import CommandNotices from '../features/command/CommandNotices';
import DictionaryLoader from '../features/dictionary/DictionaryLoader';
import InspectionPopup from '../features/exchange/InspectionPopup';
import MediaUploadPopup from '../features/media/MediaUploadPopup';
import { useFirstContent } from '../router/firstContent';
import { buildMenu, filterRoutes, flattenPages } from '../router/routeTable';
import GlobalFooter from './GlobalFooter';
import GlobalHeader from './GlobalHeader';
import { LightMenu, LightTabBar } from './LightShell';
import Logo from './Logo';
import NavMenu from './NavMenu';
import { HEADER_HEIGHT } from './dimensions';
import { useLayoutSettings } from './settings/SettingsContext';
import MultiTabBar from './tabs/MultiTabBar';
import PageContent from './tabs/PageContent';
import { TabsProvider } from './tabs/TabsContext';
import './layouts.css';

const SIDER_WIDTH = 256;
const SIDER_COLLAPSED_WIDTH = 80;

/**
 * The signed-in shell (console-spec §2 Layout): side, top or mix navigation; sider 256 px (80 px
 * collapsed); on mobile widths the menu is a drawer; header and sider can be fixed; the multi-tab
 * bar over the page content; footer; settings drawer. Until the opening page's first rows are painted the
 * menu, the tab bar and the header's actions are their light versions (LightShell.tsx) and the notices,
 * popups and the alarm dialog are not mounted yet (router/firstContent.ts: at most FALLBACK_MS).
 */
export default function BasicLayout() {
  const { user } = useSession();
  const { settings } = useLayoutSettings();
  const screens = Grid.useBreakpoint();
  const isMobile = screens.md === false;
  const [collapsed, setCollapsed] = useState(false);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const full = useFirstContent();

  const routes = useMemo(() => filterRoutes(user?.routes ?? [], user?.permissions ?? []), [user]);
  const pages = useMemo(() => flattenPages(routes), [routes]);
  const menu = useMemo(() => buildMenu(routes), [routes]);

  const layout = isMobile ? 'side' : settings.layout;
  const menuTheme = settings.navTheme === 'light' ? 'light' : 'dark';
  const fixedSider = settings.fixSiderbar && layout !== 'top';
  const onToggle = () => (isMobile ? setDrawerOpen(true) : setCollapsed(!collapsed));

  const navMenu = (mode: 'inline' | 'horizontal', onNavigate?: () => void) => (full
    ? <NavMenu menu={menu} pages={pages} mode={mode} theme={menuTheme} collapsed={collapsed} onNavigate={onNavigate} />
    : <LightMenu menu={menu} pages={pages} mode={mode} theme={menuTheme} collapsed={collapsed} />);
  const sider = !isMobile && layout !== 'top' && (
    <Layout.Sider
      width={SIDER_WIDTH}
      collapsedWidth={SIDER_COLLAPSED_WIDTH}
      collapsed={collapsed}
      theme={menuTheme}
      className={`layout-sider ${fixedSider ? 'layout-sider-fixed' : ''} ${layout === 'mix' ? 'layout-sider-mix' : ''}`}
      data-testid="sider"
    >
      {layout === 'side' && <Logo collapsed={collapsed} />}
      {navMenu('inline')}
    </Layout.Sider>
  );
  const header = (
    <GlobalHeader
      layout={layout}
      dark={menuTheme === 'dark'}
      fixed={settings.fixedHeader}
      isMobile={isMobile}
      collapsed={collapsed}
      onToggle={onToggle}
      topMenu={navMenu('horizontal')}
      actions={full}
    />
  );
  const body = (
    <Layout className="layout-body">
      <Layout.Content className={`layout-content ${settings.contentWidth === 'fixed' ? 'layout-content-fixed' : ''}`}>
        {settings.multiTab && (full ? <MultiTabBar offsetTop={settings.fixedHeader ? HEADER_HEIGHT : 0} /> : <LightTabBar />)}
        <div className="layout-page">
          <PageContent pages={pages} deniedPaths={user?.deniedPaths} />
        </div>
      </Layout.Content>
      <GlobalFooter />
    </Layout>
  );

  return (
    <TabsProvider pages={pages}>
      <Layout className={`basic-layout basic-layout-${layout}`} data-testid="basic-layout">
        {isMobile && (
          <Drawer placement="left" open={drawerOpen} onClose={() => setDrawerOpen(false)} size={SIDER_WIDTH} closable={false} styles={{ body: { padding: 0 } }}>
            <Layout.Sider width={SIDER_WIDTH} theme={menuTheme} style={{ minHeight: '100%' }}>
              <Logo />
              {navMenu('inline', () => setDrawerOpen(false))}
            </Layout.Sider>
          </Drawer>
        )}
        {layout === 'side' ? (
          <>
            {sider}
            <Layout>
              {header}
              {body}
            </Layout>
          </>
        ) : (
          <>
            {header}
            <Layout>
              {sider}
              {body}
            </Layout>
          </>
        )}
        {full && (
          <>
            <SecurityNotices />
            <CommandNotices />
            <MediaUploadPopup />
            <AlarmNotices />
            <SafetyAlarmDialog />
            <InspectionPopup />
            <DictionaryLoader />
          </>
        )}
      </Layout>
    </TabsProvider>
  );
}
