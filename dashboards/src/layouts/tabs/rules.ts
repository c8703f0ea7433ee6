/**
 * The multi-tab bar's rules (console-spec §2 "Multi-tab bar"), pure so they can be unit tested.
 * A tab is keyed by the page's full path. Tabs with closable=false are never closed, by any command.
 * The last remaining tab cannot be closed.
 */
import type { PageRoute } from '../../router/routeTable';

export interface Tab {
  /** Full path (pathname + search): the tab's identity and where it navigates to. */
  key: string;
  pathname: string;
  /** i18n key of the title in the `menu` namespace. */
  title: string;
  closable: boolean;
  cacheAble: boolean;
}

export interface TabsState {
  tabs: Tab[];
  activeKey: string;
}

/** Why a close command did nothing: an i18n key of the `layout` namespace. */
export type TabRefusal = 'tabs.lastPage' | 'tabs.noLeft' | 'tabs.noRight' | 'tabs.notClosable';

export interface TabsResult {
  state: TabsState;
  refusal?: TabRefusal;
}

export type CloseCommand = 'closeCurrent' | 'closeLeft' | 'closeRight' | 'closeOthers' | 'closeAll';

/** Exception pages (platform-spec §1: 403, 404, 500) are where a wrong link lands, not a place one
 * works in: they are shown without a tab of their own. */
const TABLESS_PATHS = new Set(['/403', '/404', '/500']);

/** Whether opening `pathname` adds a tab. */
export function opensTab(pathname: string): boolean {
  return !TABLESS_PATHS.has(pathname);
}

/** The tab of a page: closable and cacheAble unless its route meta says false. */
export function tabFor(page: Pick<PageRoute, 'meta'>, pathname: string, search = ''): Tab {
  return {
    key: `${pathname}${search}`,
    pathname,
    title: page.meta.title,
    closable: page.meta.closable !== false,
    cacheAble: page.meta.cacheAble !== false,
  };
}

/** Opening a page adds its tab (or refreshes its title and flags) and makes it active. */
export function openTab(state: TabsState, tab: Tab): TabsState {
  const index = state.tabs.findIndex((t) => t.key === tab.key);
  const tabs = index < 0 ? [...state.tabs, tab] : state.tabs.map((t, i) => (i === index ? tab : t));
  return { tabs, activeKey: tab.key };
}

/**
 * After tabs went away the active one stays if it survived; else the tab the command was given on,
 * if it survived; else the tab that took the active one's place.
 */
function keepActive(before: TabsState, tabs: Tab[], commandKey?: string): TabsState {
  if (tabs.some((t) => t.key === before.activeKey)) return { tabs, activeKey: before.activeKey };
  if (commandKey && tabs.some((t) => t.key === commandKey)) return { tabs, activeKey: commandKey };
  const oldIndex = before.tabs.findIndex((t) => t.key === before.activeKey);
  const next = tabs[Math.min(Math.max(oldIndex, 0), tabs.length - 1)] ?? tabs[tabs.length - 1];
  return { tabs, activeKey: next ? next.key : '' };
}

export function closeTab(state: TabsState, key: string): TabsResult {
  const tab = state.tabs.find((t) => t.key === key);
  if (!tab) return { state };
  if (state.tabs.length <= 1) return { state, refusal: 'tabs.lastPage' };
  if (!tab.closable) return { state, refusal: 'tabs.notClosable' };
  return { state: keepActive(state, state.tabs.filter((t) => t.key !== key)) };
}

export function closeLeft(state: TabsState, key: string): TabsResult {
  const index = state.tabs.findIndex((t) => t.key === key);
  const left = state.tabs.slice(0, Math.max(index, 0)).filter((t) => t.closable);
  if (index <= 0 || left.length === 0) return { state, refusal: 'tabs.noLeft' };
  const tabs = state.tabs.filter((t, i) => i >= index || !t.closable);
  return { state: keepActive(state, tabs, key) };
}

export function closeRight(state: TabsState, key: string): TabsResult {
  const index = state.tabs.findIndex((t) => t.key === key);
  const right = index < 0 ? [] : state.tabs.slice(index + 1).filter((t) => t.closable);
  if (right.length === 0) return { state, refusal: 'tabs.noRight' };
  const tabs = state.tabs.filter((t, i) => i <= index || !t.closable);
  return { state: keepActive(state, tabs, key) };
}

export function closeOthers(state: TabsState, key: string): TabsResult {
  if (state.tabs.length <= 1) return { state, refusal: 'tabs.lastPage' };
  const tabs = state.tabs.filter((t) => t.key === key || !t.closable);
  return { state: keepActive(state, tabs, key) };
}

/** Closes every closable tab; when that would leave none, the given tab stays (the last page rule). */
export function closeAll(state: TabsState, key: string): TabsResult {
  if (state.tabs.length <= 1) return { state, refusal: 'tabs.lastPage' };
  const kept = state.tabs.filter((t) => !t.closable);
  const tabs = kept.length > 0 ? kept : state.tabs.filter((t) => t.key === key);
  return { state: keepActive(state, tabs, key) };
}

export function applyClose(state: TabsState, command: CloseCommand, key: string): TabsResult {
  switch (command) {
    case 'closeCurrent':
      return closeTab(state, key);
    case 'closeLeft':
      return closeLeft(state, key);
    case 'closeRight':
      return closeRight(state, key);
    case 'closeOthers':
      return closeOthers(state, key);
    case 'closeAll':
      return closeAll(state, key);
  }
}

/** Keys of the tabs whose page stays mounted while hidden (cacheAble !== false). */
export function cachedKeys(state: TabsState): string[] {
  return state.tabs.filter((t) => t.cacheAble).map((t) => t.key);
}

export const TABS_STORAGE_KEY = 'fleetwatch.tabs';

export function serializeTabs(state: TabsState): string {
  return JSON.stringify(state);
}

function isTab(value: unknown): value is Tab {
  const tab = value as Tab;
  return (
    !!tab &&
    typeof tab.key === 'string' &&
    tab.key.startsWith('/') &&
    typeof tab.pathname === 'string' &&
    typeof tab.title === 'string' &&
    typeof tab.closable === 'boolean' &&
    typeof tab.cacheAble === 'boolean'
  );
}

/** Restores what serializeTabs wrote; anything malformed yields no tabs. */
export function restoreTabs(raw: string | null): TabsState {
  const empty: TabsState = { tabs: [], activeKey: '' };
  if (!raw) return empty;
  try {
    const parsed = JSON.parse(raw) as Partial<TabsState>;
    if (!Array.isArray(parsed.tabs) || !parsed.tabs.every(isTab)) return empty;
    const activeKey = typeof parsed.activeKey === 'string' ? parsed.activeKey : '';
    return { tabs: parsed.tabs, activeKey };
  } catch {
    return empty;
  }
}
