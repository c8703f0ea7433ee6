import { App } from 'antd';
import { createContext, useContext, useEffect, useEffectEvent, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { findPage, type PageRoute } from '../../router/routeTable';
import { eventKey, PAGE_CLOSE_EVENT, PAGE_REFRESH_EVENT, TAB_REFRESH_DELAY_MS } from './events';
import {
  applyClose,
  openTab,
  opensTab,
  restoreTabs,
  serializeTabs,
  tabFor,
  TABS_STORAGE_KEY,
  type CloseCommand,
  type TabsState,
} from './rules';

export interface TabsApi {
  state: TabsState;
  /** Bumped on refresh: part of the page's React key, so its cached state is dropped. */
  versions: Record<string, number>;
  /** Tabs waiting out the refresh delay. */
  reloading: Record<string, boolean>;
  close: (command: CloseCommand, key: string) => void;
  refresh: (key: string) => void;
}

const TabsContext = createContext<TabsApi | null>(null);

function initialState(pages: PageRoute[]): TabsState {
  const restored = restoreTabs(sessionStorage.getItem(TABS_STORAGE_KEY));
  const tabs = restored.tabs.filter((tab) => {
    const page = findPage(pages, tab.pathname);
    return page && !page.redirect && opensTab(tab.pathname); // a 404 tab of an older session goes too
  });
  return { tabs, activeKey: restored.activeKey };
}

export function TabsProvider({ pages, children }: { pages: PageRoute[]; children: ReactNode }) {
  const { t } = useTranslation('layout');
  const { message } = App.useApp();
  const location = useLocation();
  const navigate = useNavigate();
  const [state, setState] = useState<TabsState>(() => initialState(pages));
  const [versions, setVersions] = useState<Record<string, number>>({});
  const [reloading, setReloading] = useState<Record<string, boolean>>({});
  const [seenPath, setSeenPath] = useState<string | null>(null);

  // Opening a page opens its tab; adjusted during render, so the tab exists in the same commit.
  const fullPath = `${location.pathname}${location.search}`;
  if (seenPath !== fullPath) {
    setSeenPath(fullPath);
    const page = findPage(pages, location.pathname);
    if (page && !page.redirect && opensTab(location.pathname)) {
      setState((current) => openTab(current, tabFor(page, location.pathname, location.search)));
    }
  }

  const close = (command: CloseCommand, key: string) => {
    const result = applyClose(state, command, key);
    if (result.refusal) {
      void message.warning(t(result.refusal));
      return;
    }
    setState(result.state);
    if (result.state.activeKey !== fullPath) navigate(result.state.activeKey);
  };

  const refresh = (key: string) => {
    setReloading((current) => ({ ...current, [key]: true }));
    window.setTimeout(() => {
      setVersions((current) => ({ ...current, [key]: (current[key] ?? 0) + 1 }));
      setReloading((current) => ({ ...current, [key]: false }));
    }, TAB_REFRESH_DELAY_MS);
  };

  const onPageClose = useEffectEvent((event: Event) => close('closeCurrent', eventKey(event) ?? fullPath));
  const onPageRefresh = useEffectEvent((event: Event) => refresh(eventKey(event) ?? fullPath));
  const onUnload = useEffectEvent(() => sessionStorage.setItem(TABS_STORAGE_KEY, serializeTabs(state)));

  useEffect(() => {
    const save = () => onUnload();
    window.addEventListener(PAGE_CLOSE_EVENT, onPageClose);
    window.addEventListener(PAGE_REFRESH_EVENT, onPageRefresh);
    window.addEventListener('pagehide', save);
    window.addEventListener('beforeunload', save);
    return () => {
      window.removeEventListener(PAGE_CLOSE_EVENT, onPageClose);
      window.removeEventListener(PAGE_REFRESH_EVENT, onPageRefresh);
      window.removeEventListener('pagehide', save);
      window.removeEventListener('beforeunload', save);
    };
  }, []);

  const api: TabsApi = { state, versions, reloading, close, refresh };
  return <TabsContext.Provider value={api}>{children}</TabsContext.Provider>;
}

// eslint-disable-next-line react-refresh/only-export-components
export function useTabs(): TabsApi {
  const api = useContext(TabsContext);
  if (!api) throw new Error('useTabs outside TabsProvider');
  return api;
}
