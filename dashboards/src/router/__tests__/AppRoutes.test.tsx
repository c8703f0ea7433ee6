import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import '../../i18n';
import { MemoryRouter, useLocation } from 'react-router';
import { session } from '../../auth/session';
import type { CurrentUser } from '../../auth/types';
import AppProviders from '../../components/AppProviders';
import { SettingsProvider } from '../../layouts/settings/SettingsContext';
import AppRoutes from '../AppRoutes';
import { closePage, refreshPage } from '../../layouts/tabs/events';
import { TABS_STORAGE_KEY } from '../../layouts/tabs/rules';
import { openFirstContent } from '../firstContent';
import { setIndexUrl } from '../paths';

function LocationProbe() {
  const location = useLocation();
  return <output data-testid="location">{`${location.pathname}${location.search}`}</output>;
}

function renderAt(path: string) {
  return render(
    <SettingsProvider>
      <AppProviders>
        <MemoryRouter initialEntries={[path]}>
          <AppRoutes />
          <LocationProbe />
        </MemoryRouter>
      </AppProviders>
    </SettingsProvider>,
  );
}

const USER: CurrentUser = {
  id: 1,
  userName: 'ops',
  nickName: 'Operator',
  permissions: [{ code: 'monitor', actions: ['query'] }],
  routes: [],
};

beforeEach(() => {
  sessionStorage.clear();
  localStorage.clear();
  session.reload();
  // As main.tsx does for an address without a list page: the full shell at once (LightShell.tsx is the
  // first paint of a list page only, tests in layouts/__tests__/lightShell.test.tsx).
  openFirstContent();
  // The notice bell polls; answer with an empty overview.
  vi.stubGlobal('fetch', vi.fn().mockResolvedValue(new Response(JSON.stringify({ code: 0, message: 'ok', data: [] }))));
});

afterEach(() => {
  session.clear();
  vi.unstubAllGlobals();
});

describe('routing and session', () => {
  test('an unauthenticated visitor goes to login with the original full path as redirect', async () => {
    renderAt('/dashboard/map?plate=A1');
    await waitFor(() =>
      expect(screen.getByTestId('location').textContent).toBe('/user/login?redirect=%2Fdashboard%2Fmap%3Fplate%3DA1'),
    );
    expect(screen.getByTestId('login-username')).toBeTruthy();
    expect(screen.getByTestId('login-password')).toBeTruthy();
    expect(screen.getByTestId('login-submit')).toBeTruthy();
  });

  test('the login form asks for user name and password', async () => {
    renderAt('/user/login');
    fireEvent.click(screen.getByTestId('login-submit'));
    expect(await screen.findByText('请输入用户名！')).toBeTruthy();
    expect(await screen.findByText('请输入密码！')).toBeTruthy();
  });

  test('a signed-in user opening login goes to the index URL', async () => {
    session.setToken({ access_token: 'a', refresh_token: 'r', expires_in: 3600 });
    session.setUser(USER);
    setIndexUrl('/account/center');
    renderAt('/user/login');
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/account/center'));
  });

  test('unknown paths go to /404 inside the shell', async () => {
    session.setToken({ access_token: 'a', refresh_token: 'r', expires_in: 3600 });
    session.setUser(USER);
    renderAt('/no/such/page');
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/404'));
    expect(await screen.findByText('抱歉，你访问的页面不存在')).toBeTruthy();
  });

  test('a screen the user has no right to goes to /403, not /404', async () => {
    session.setToken({ access_token: 'a', refresh_token: 'r', expires_in: 3600 });
    session.setUser({ ...USER, deniedPaths: ['/list/car', '/cockpit/index'] });
    renderAt('/list/car');
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/403'), { timeout: 5_000 });
  });

  test('a cockpit the route map does not hold says 403', async () => {
    session.setToken({ access_token: 'a', refresh_token: 'r', expires_in: 3600 });
    session.setUser(USER);
    renderAt('/cockpit/index');
    expect(await screen.findByTestId('exception-403', {}, { timeout: 5_000 })).toBeTruthy();
  });

  test('the last tab cannot be closed', async () => {
    session.setToken({ access_token: 'a', refresh_token: 'r', expires_in: 3600 });
    session.setUser(USER);
    renderAt('/account/center');
    const bar = await screen.findByTestId('tabs-bar');
    expect(screen.getByTestId('tab-/account/center')).toBeTruthy();
    const close = bar.querySelector('.ant-tabs-tab-remove') as HTMLElement;
    await act(async () => fireEvent.click(close));
    expect(await screen.findByText('这是最后一个标签了，无法被关闭')).toBeTruthy();
    expect(screen.getByTestId('tab-/account/center')).toBeTruthy();
  });

  test('tabs are restored from session storage (never an exception page), and page:close / page:refresh act on them', async () => {
    session.setToken({ access_token: 'a', refresh_token: 'r', expires_in: 3600 });
    session.setUser(USER);
    const tab = (key: string, title: string) => ({ key, pathname: key, title, closable: true, cacheAble: true });
    sessionStorage.setItem(
      TABS_STORAGE_KEY,
      JSON.stringify({
        tabs: [tab('/404', 'menu.exception.404'), tab('/account/settings', 'menu.account.settings'),
          tab('/account/center', 'menu.account.center')],
        activeKey: '/account/settings',
      }),
    );
    renderAt('/account/center');
    await screen.findByTestId('tab-/account/settings');
    expect(screen.getByTestId('tab-/account/center')).toBeTruthy();
    expect(screen.queryByTestId('tab-/404')).toBeNull(); // a 404 is never a tab, not even one saved earlier

    // A refresh remounts the page after the 200 ms delay: its DOM node is replaced.
    const before = await screen.findByTestId('account-center');
    act(() => refreshPage('/account/center'));
    await waitFor(() => expect(screen.getByTestId('account-center')).not.toBe(before));

    act(() => closePage('/account/settings'));
    await waitFor(() => expect(screen.queryByTestId('tab-/account/settings')).toBeNull());
    expect(screen.getByTestId('location').textContent).toBe('/account/center');
  });
});
