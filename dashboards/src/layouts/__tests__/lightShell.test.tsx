import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import '../../i18n';
import { MemoryRouter, useLocation } from 'react-router';
import { session } from '../../auth/session';
import type { CurrentUser, ServerRoute } from '../../auth/types';
import AppProviders from '../../components/AppProviders';
import { openFirstContent, resetFirstContent } from '../../router/firstContent';
import AppRoutes from '../../router/AppRoutes';
import { SettingsProvider } from '../settings/SettingsContext';

function LocationProbe() {
  return <output data-testid="location">{useLocation().pathname}</output>;
}

const route = (path: string, component: string, title: string, children: ServerRoute[] = []): ServerRoute => ({
  path, name: path, component, meta: { title, icon: 'user' }, children,
});

const USER: CurrentUser = {
  id: 1,
  userName: 'ops',
  nickName: 'Operator',
  permissions: [],
  routes: [
    route('/account', 'RouteView', 'menu.account', [
      route('/account/center', 'account/center', 'menu.account.center'),
      route('/account/settings', 'account/settings', 'menu.account.settings'),
    ]),
  ],
};

function renderShell(path: string) {
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

beforeEach(() => {
  sessionStorage.clear();
  localStorage.clear();
  resetFirstContent();
  vi.stubGlobal('fetch', vi.fn().mockResolvedValue(new Response(JSON.stringify({ code: 0, message: 'ok', data: [] }))));
  session.setToken({ access_token: 'a', refresh_token: 'r', expires_in: 3600 });
  session.setUser(USER);
});

afterEach(() => {
  session.clear();
  resetFirstContent();
  vi.unstubAllGlobals();
});

describe("the shell's first paint before the opening page's first rows", () => {
  test('shows the light menu, tabs and header, then the full ones, whose menu navigates', async () => {
    renderShell('/account/center');
    const light = await screen.findByTestId('menu-light');
    // the selected page's branch is open, its entry a link, as the full menu will show it
    expect(light.textContent).toContain('个人中心');
    expect(light.querySelector('a[href="/account/settings"]')).toBeTruthy();
    expect(screen.getByTestId('tabs-bar-light')).toBeTruthy();
    expect(screen.getByTestId('header-right-light')).toBeTruthy();
    expect(screen.queryByTestId('menu')).toBeNull();
    expect(screen.queryByTestId('tabs-bar')).toBeNull();
    expect(screen.queryByTestId('user-menu')).toBeNull();

    act(() => openFirstContent()); // the list page's first rows are painted

    const menu = await screen.findByTestId('menu');
    expect(screen.queryByTestId('menu-light')).toBeNull();
    expect(screen.queryByTestId('tabs-bar-light')).toBeNull();
    expect(screen.queryByTestId('header-right-light')).toBeNull();
    expect(screen.getByTestId('tabs-bar')).toBeTruthy();
    fireEvent.click((await within(menu).findAllByText('个人设置'))[0]);
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/account/settings'));
  });

  test('a link of the light menu navigates before the full menu is in', async () => {
    renderShell('/account/center');
    const light = await screen.findByTestId('menu-light');
    fireEvent.click(light.querySelector('a[href="/account/settings"]') as Element);
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/account/settings'));
    expect(screen.queryByTestId('menu')).toBeNull();
  });
});
