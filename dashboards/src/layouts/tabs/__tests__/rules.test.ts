import { describe, expect, test } from 'vitest';
import {
  applyClose,
  cachedKeys,
  closeAll,
  closeLeft,
  closeOthers,
  closeRight,
  closeTab,
  openTab,
  opensTab,
  restoreTabs,
  serializeTabs,
  tabFor,
  type Tab,
  type TabsState,
} from '../rules';

const tab = (key: string, flags: Partial<Tab> = {}): Tab => ({
  key,
  pathname: key.split('?')[0],
  title: `menu.${key}`,
  closable: true,
  cacheAble: true,
  ...flags,
});

const state = (keys: Tab[], activeKey: string): TabsState => ({ tabs: keys, activeKey });
const keys = (s: TabsState) => s.tabs.map((t) => t.key);

const map = tab('/dashboard/map', { closable: false });
const a = tab('/a');
const b = tab('/b');
const c = tab('/c');

describe('opening', () => {
  test('opening a page appends its tab and activates it', () => {
    const s = openTab(state([map], '/dashboard/map'), a);
    expect(keys(s)).toEqual(['/dashboard/map', '/a']);
    expect(s.activeKey).toBe('/a');
  });

  test('opening an open page only activates it', () => {
    const s = openTab(state([map, a, b], '/b'), a);
    expect(keys(s)).toEqual(['/dashboard/map', '/a', '/b']);
    expect(s.activeKey).toBe('/a');
  });

  test('a tab takes closable and cacheAble from the route meta, defaulting to true', () => {
    expect(tabFor({ meta: { title: 't' } }, '/x', '?q=1')).toEqual({
      key: '/x?q=1',
      pathname: '/x',
      title: 't',
      closable: true,
      cacheAble: true,
    });
    const locked = tabFor({ meta: { title: 't', closable: false, cacheAble: false } }, '/x');
    expect([locked.closable, locked.cacheAble]).toEqual([false, false]);
  });
});

describe('closing one tab', () => {
  test('the last remaining tab cannot be closed', () => {
    const s = state([a], '/a');
    expect(closeTab(s, '/a')).toEqual({ state: s, refusal: 'tabs.lastPage' });
  });

  test('a closable=false tab cannot be closed', () => {
    expect(closeTab(state([map, a], '/a'), '/dashboard/map').refusal).toBe('tabs.notClosable');
  });

  test('closing the active tab activates its right neighbour, else the new last tab', () => {
    expect(closeTab(state([map, a, b, c], '/b'), '/b').state.activeKey).toBe('/c');
    expect(closeTab(state([map, a, b, c], '/c'), '/c').state.activeKey).toBe('/b');
  });

  test('closing an inactive tab keeps the active one', () => {
    const { state: s } = closeTab(state([map, a, b], '/b'), '/a');
    expect(keys(s)).toEqual(['/dashboard/map', '/b']);
    expect(s.activeKey).toBe('/b');
  });
});

describe('context menu commands', () => {
  test('close left keeps the tab, the right side and closable=false tabs', () => {
    const { state: s } = closeLeft(state([map, a, b, c], '/c'), '/b');
    expect(keys(s)).toEqual(['/dashboard/map', '/b', '/c']);
    expect(s.activeKey).toBe('/c');
  });

  test('close left of the first tab, or with only unclosable tabs on the left, says "no tab on the left"', () => {
    expect(closeLeft(state([a, b], '/a'), '/a').refusal).toBe('tabs.noLeft');
    expect(closeLeft(state([map, a], '/a'), '/a').refusal).toBe('tabs.noLeft');
  });

  test('close right keeps the tab and the left side', () => {
    const { state: s } = closeRight(state([map, a, b, c], '/c'), '/a');
    expect(keys(s)).toEqual(['/dashboard/map', '/a']);
    expect(s.activeKey).toBe('/a');
  });

  test('close right of the last tab says "no tab on the right"', () => {
    expect(closeRight(state([a, b], '/b'), '/b').refusal).toBe('tabs.noRight');
  });

  test('close others keeps the tab and closable=false tabs, and activates the tab', () => {
    const { state: s } = closeOthers(state([map, a, b, c], '/c'), '/b');
    expect(keys(s)).toEqual(['/dashboard/map', '/b']);
    expect(s.activeKey).toBe('/b');
  });

  test('close all keeps only closable=false tabs', () => {
    const { state: s } = closeAll(state([map, a, b], '/b'), '/b');
    expect(keys(s)).toEqual(['/dashboard/map']);
    expect(s.activeKey).toBe('/dashboard/map');
  });

  test('close all without closable=false tabs keeps the current tab (the last page rule)', () => {
    const { state: s } = closeAll(state([a, b, c], '/c'), '/b');
    expect(keys(s)).toEqual(['/b']);
    expect(s.activeKey).toBe('/b');
  });

  test('close others and close all on a single tab say it is the last page', () => {
    expect(closeOthers(state([a], '/a'), '/a').refusal).toBe('tabs.lastPage');
    expect(closeAll(state([a], '/a'), '/a').refusal).toBe('tabs.lastPage');
  });

  test('applyClose dispatches by command', () => {
    const s = state([map, a, b], '/b');
    expect(applyClose(s, 'closeCurrent', '/b')).toEqual(closeTab(s, '/b'));
    expect(applyClose(s, 'closeLeft', '/b')).toEqual(closeLeft(s, '/b'));
    expect(applyClose(s, 'closeRight', '/a')).toEqual(closeRight(s, '/a'));
    expect(applyClose(s, 'closeOthers', '/a')).toEqual(closeOthers(s, '/a'));
    expect(applyClose(s, 'closeAll', '/a')).toEqual(closeAll(s, '/a'));
  });
});

describe('cache and persistence', () => {
  test('cacheAble=false tabs are not kept alive', () => {
    expect(cachedKeys(state([map, tab('/settings', { cacheAble: false }), a], '/a'))).toEqual(['/dashboard/map', '/a']);
  });

  test('tabs survive a serialize/restore round trip', () => {
    const s = state([map, a, tab('/x?id=1')], '/x?id=1');
    expect(restoreTabs(serializeTabs(s))).toEqual(s);
  });

  test.each([null, '', 'not json', '{"tabs":"x"}', '{"tabs":[{"key":"relative"}]}', '{"tabs":[{"key":"/a"}]}'])(
    'malformed storage (%s) restores no tabs',
    (raw) => expect(restoreTabs(raw)).toEqual({ tabs: [], activeKey: '' }),
  );
});

describe('exception pages open no tab', () => {
  test('403, 404 and 500 are shown without a tab; every other page has one', () => {
    expect(['/403', '/404', '/500'].map(opensTab)).toEqual([false, false, false]);
    expect(['/list/car', '/user/user', '/404x'].map(opensTab)).toEqual([true, true, true]);
  });
});
