import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, test, vi, type Mock } from 'vitest';
import '../../../i18n';
import { session } from '../../../auth/session';
import type { Permission } from '../../../auth/types';
import AppProviders from '../../../components/AppProviders';
import { SettingsProvider } from '../../../layouts/settings/SettingsContext';
import { currentNotifySettings } from '../../alarm/useNotifySettings';
import NotifySwitchesPanel from '../NotifySwitchesPanel';

const ok = (data: unknown) => new Response(JSON.stringify({ code: 0, message: 'ok', data }), { status: 200, headers: { 'Content-Type': 'application/json' } });

let switches = { carStateChangeWindowEnable: true, carRespCmdWindowEnable: false, uploadFileWindowEnable: true };
let fetchMock: Mock<(url: string, init?: RequestInit) => Promise<Response>>;
const puts = () => fetchMock.mock.calls.filter(([url, init]) => url.startsWith('/api/alarm/notify/settings.json') && init?.method === 'PUT');

function signIn(permissions: Permission[]) {
  session.setToken({ access_token: 'tok', refresh_token: 'r', expires_in: 3600 });
  session.setUser({ id: 7, userName: 'ops', permissions, routes: [] });
}

const renderPanel = async () => {
  render(<SettingsProvider><AppProviders><NotifySwitchesPanel /></AppProviders></SettingsProvider>);
  return screen.findByTestId('notify-switch-carStateChangeWindowEnable', {}, { timeout: 10_000 });
};
const checked = (name: string) => screen.getByTestId(`notify-switch-${name}`).getAttribute('aria-checked');

beforeEach(() => {
  switches = { carStateChangeWindowEnable: true, carRespCmdWindowEnable: false, uploadFileWindowEnable: true };
  fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
    if (url.startsWith('/api/common/query/alarmLevelUserSettingRuleView.json')) return ok({ list: [] });
    if (init?.method === 'PUT') switches = { ...switches, ...(JSON.parse(String(init.body)) as typeof switches) };
    return ok({ alarmRule: {}, ...switches });
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  session.clear();
  vi.unstubAllGlobals();
});

describe('the enterprise notification switches (messageNotifyRule)', () => {
  test('an administrator turns one off; it is saved and every notice follows at once', async () => {
    signIn([{ code: 'alarm', actions: ['query'] }, { code: 'enterprise', actions: ['update'] }]);
    await renderPanel();
    expect(checked('carRespCmdWindowEnable')).toBe('false');
    expect(screen.getByTestId('notify-switches-save').hasAttribute('disabled')).toBe(true); // nothing changed yet
    fireEvent.click(screen.getByTestId('notify-switch-carStateChangeWindowEnable'));
    fireEvent.click(screen.getByTestId('notify-switches-save'));
    await waitFor(() => expect(puts().length).toBe(1));
    expect(JSON.parse(String(puts()[0][1]?.body))).toEqual({ carStateChangeWindowEnable: false, carRespCmdWindowEnable: false, uploadFileWindowEnable: true });
    await waitFor(() => expect(currentNotifySettings()?.carStateChangeWindowEnable).toBe(false));
    expect(checked('carStateChangeWindowEnable')).toBe('false');
  }, 60_000);

  test('without enterprise:update they are shown read-only', async () => {
    signIn([{ code: 'alarm', actions: ['query'] }]);
    await renderPanel();
    expect(screen.getByTestId('notify-switch-uploadFileWindowEnable').hasAttribute('disabled')).toBe(true);
    expect(screen.getByTestId('notify-switches-read-only')).toBeTruthy();
    expect(screen.queryByTestId('notify-switches-save')).toBeNull();
  }, 60_000);
});
