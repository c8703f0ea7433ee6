import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, test, vi, type Mock } from 'vitest';
import '../../../i18n';
import { MemoryRouter } from 'react-router';
import { session } from '../../../auth/session';
import type { Permission } from '../../../auth/types';
import AppProviders from '../../../components/AppProviders';
import { SettingsProvider } from '../../../layouts/settings/SettingsContext';
import NotifySettingsPanel from '../NotifySettingsPanel';

const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
const ok = (data: unknown) => json({ code: 0, message: 'ok', data });

const SETTINGS = {
  alarmRule: { a0: { disabled: false, windowEnable: true, voiceEnable: true, voice: '紧急', startHour: 0, endHour: 24 } },
  carStateChangeWindowEnable: true, carRespCmdWindowEnable: false, uploadFileWindowEnable: true,
};

let fetchMock: Mock<(url: string, init?: RequestInit) => Promise<Response>>;
const puts = () => fetchMock.mock.calls.filter(([url, init]) => url.startsWith('/api/alarm/notify/settings.json') && init?.method === 'PUT');

function signIn(permissions: Permission[]) {
  session.setToken({ access_token: 'tok', refresh_token: 'r', expires_in: 3600 });
  session.setUser({ id: 1, userName: 'ops', permissions, routes: [] });
}

function renderPanel() {
  render(<SettingsProvider><AppProviders><MemoryRouter><NotifySettingsPanel /></MemoryRouter></AppProviders></SettingsProvider>);
  return screen.findByTestId('notify-disabled-a0', {}, { timeout: 10_000 });
}

beforeEach(() => {
  fetchMock = vi.fn(async () => ok(SETTINGS));
  vi.stubGlobal('fetch', fetchMock);
});

afterEach(() => {
  session.clear();
  vi.unstubAllGlobals();
});

describe('the alarm notification rules', () => {
  test('lists the catalogue keys by name with the saved rule, and saves a changed rule with the saved ones', async () => {
    signIn([{ code: 'alarm', actions: ['query'] }]);
    await renderPanel();
    expect(screen.getByText('紧急报警')).toBeTruthy(); // a0 by its catalogue name
    expect((screen.getByTestId('notify-voice-a0') as HTMLInputElement).value).toBe('紧急');
    expect(screen.getByTestId('notify-switch-carRespCmdWindowEnable').getAttribute('aria-checked')).toBe('false');
    expect(screen.getByTestId('notify-switch-carRespCmdWindowEnable').hasAttribute('disabled')).toBe(true); // needs enterprise:update
    fireEvent.click(screen.getByTestId('notify-disabled-a1'));
    fireEvent.click(screen.getByTestId('notify-save'));
    await waitFor(() => expect(puts().length).toBe(1));
    const body = JSON.parse(String(puts()[0][1]?.body)) as { alarmRule: Record<string, { disabled: boolean }>; carRespCmdWindowEnable: boolean };
    expect(Object.keys(body.alarmRule).sort()).toEqual(['a0', 'a1']);
    expect(body.alarmRule.a1.disabled).toBe(true);
    expect(body.carRespCmdWindowEnable).toBe(false);
  }, 60_000);

  test('hours the server would refuse are stopped before saving', async () => {
    signIn([{ code: 'alarm', actions: ['query'] }, { code: 'enterprise', actions: ['update'] }]);
    await renderPanel();
    expect(screen.getByTestId('notify-switch-carRespCmdWindowEnable').hasAttribute('disabled')).toBe(false);
    const start = screen.getByTestId('notify-startHour-a0');
    fireEvent.change(start, { target: { value: '23' } });
    fireEvent.blur(start);
    const end = screen.getByTestId('notify-endHour-a0');
    fireEvent.change(end, { target: { value: '5' } });
    fireEvent.blur(end);
    fireEvent.click(screen.getByTestId('notify-save'));
    await screen.findByText(/紧急报警.*无效/);
    expect(puts().length).toBe(0);
  }, 60_000);
});
