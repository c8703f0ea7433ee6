import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, test, vi, type Mock } from 'vitest';
import '../../../i18n';
import { MemoryRouter } from 'react-router';
import { session } from '../../../auth/session';
import type { Permission } from '../../../auth/types';
import AppProviders from '../../../components/AppProviders';
import { SettingsProvider } from '../../../layouts/settings/SettingsContext';
import { currentNotifySettings } from '../../alarm/useNotifySettings';
import NotifySettingsPanel from '../NotifySettingsPanel';

const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
const ok = (data: unknown) => json({ code: 0, message: 'ok', data });

const OWN_A0 = { disabled: false, windowEnable: true, voiceEnable: true, voice: '紧急', startHour: 0, endHour: 24 };
const ENTERPRISE_A1 = { disabled: false, windowEnable: true, voiceEnable: true, voice: null, startHour: 8, endHour: 20 };
/** alarmLevelUserSettingRuleView rows: the user's own a0, a1 inherited from the enterprise. */
let ruleRows: { alarmKey: string; source: string; alarmRule: typeof OWN_A0 | typeof ENTERPRISE_A1 }[] = [];
/** The settings GET: the switches (its alarmRule is not what the console reads the rules from). */
const SETTINGS = { alarmRule: {}, carStateChangeWindowEnable: true, carRespCmdWindowEnable: false, uploadFileWindowEnable: true };

let fetchMock: Mock<(url: string, init?: RequestInit) => Promise<Response>>;
const calls = (prefix: string, method: string) => fetchMock.mock.calls.filter(([url, init]) => url.startsWith(prefix) && (init?.method ?? 'GET') === method);
const puts = () => calls('/api/alarm/notify/settings.json', 'PUT');
const putBody = (index: number) => JSON.parse(String(puts()[index][1]?.body)) as { alarmRule: Record<string, unknown> };

function signIn(permissions: Permission[]) {
  session.setToken({ access_token: 'tok', refresh_token: 'r', expires_in: 3600 });
  session.setUser({ id: 41, userName: 'ops', permissions, routes: [] });
}

function renderPanel() {
  render(<SettingsProvider><AppProviders><MemoryRouter><NotifySettingsPanel /></MemoryRouter></AppProviders></SettingsProvider>);
  return screen.findByTestId('notify-disabled-a0', {}, { timeout: 10_000 });
}

beforeEach(() => {
  ruleRows = [{ alarmKey: 'a0', source: 'user', alarmRule: OWN_A0 }, { alarmKey: 'a1', source: 'enterprise', alarmRule: ENTERPRISE_A1 }];
  fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
    if (url.startsWith('/api/common/query/alarmLevelUserSettingRuleView.json')) return ok({ list: ruleRows, pageNo: 1, pageSize: 1000 });
    if (url.startsWith('/api/alarm/notify/settings.json') && init?.method === 'PUT') {
      const body = JSON.parse(String(init.body)) as { alarmRule: Record<string, unknown> };
      if (body.alarmRule.a0 === null) ruleRows = ruleRows.filter((r) => r.alarmKey !== 'a0');
      return ok(SETTINGS);
    }
    return ok(SETTINGS);
  });
  vi.stubGlobal('fetch', fetchMock);
  signIn([{ code: 'alarm', actions: ['query'] }]);
});

afterEach(() => {
  session.clear();
  vi.unstubAllGlobals();
});

describe('the alarm notification rules', () => {
  test('reads the rules as console-spec §7 says, through the shared holder, and shows which are inherited', async () => {
    await renderPanel();
    const [[url, init]] = calls('/api/common/query/alarmLevelUserSettingRuleView.json', 'POST');
    const params = new URL(url, 'http://console').searchParams;
    expect(params.get('select')?.split(',').slice(0, 2)).toEqual(['alarmKey', 'alarmRule']);
    expect([params.get('pageNo'), params.get('pageSize')]).toEqual(['1', '1000']);
    expect(JSON.parse(String(init?.body))).toEqual({ 'userId.eq': 41, 'alarmRule.exists': true });
    expect(currentNotifySettings()?.alarmRule.a1).toMatchObject({ startHour: 8, source: 'enterprise' });
    expect(currentNotifySettings()?.carRespCmdWindowEnable).toBe(false); // the switches from the settings GET
    expect(screen.getByText('紧急报警')).toBeTruthy(); // a0 by its catalogue name
    expect((screen.getByTestId('notify-voice-a0') as HTMLInputElement).value).toBe('紧急');
    expect(screen.getByTestId('notify-source-a0').textContent).toBe('自定义');
    expect(screen.getByTestId('notify-source-a1').textContent).toBe('企业默认');
    expect(screen.getByTestId('notify-source-a2').textContent).toBe('系统默认');
    expect((screen.getByTestId('notify-startHour-a1') as HTMLInputElement).value).toBe('8');
    expect(screen.queryByTestId('notify-inherit-a1')).toBeNull(); // only an own rule can be given up
    expect(screen.getByTestId('notify-switches-link').getAttribute('href')).toBe('/setting/messageNotifyRule');
  }, 60_000);

  test('saves only what changed, as the user\'s own rule; an inherited rule left alone stays inherited', async () => {
    await renderPanel();
    fireEvent.click(screen.getByTestId('notify-disabled-a2'));
    fireEvent.click(screen.getByTestId('notify-save'));
    await waitFor(() => expect(puts().length).toBe(1));
    const body = putBody(0);
    expect(Object.keys(body)).toEqual(['alarmRule']); // the switches are another screen's
    expect(Object.keys(body.alarmRule)).toEqual(['a2']);
    expect(body.alarmRule.a2).toEqual({ disabled: true, windowEnable: true, voiceEnable: false, voice: null, startHour: 0, endHour: 24 });
  }, 60_000);

  test('"use inherited" removes the own rule and shows the inherited one', async () => {
    await renderPanel();
    fireEvent.click(screen.getByTestId('notify-inherit-a0'));
    await waitFor(() => expect(puts().length).toBe(1));
    expect(putBody(0)).toEqual({ alarmRule: { a0: null } });
    await waitFor(() => expect(screen.getByTestId('notify-source-a0').textContent).toBe('系统默认'));
  }, 60_000);

  test('hours the server would refuse are stopped before saving', async () => {
    await renderPanel();
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

  test('lists one rule per fence alarm kind, named, and saves a change of one as the kind\'s rule', async () => {
    await renderPanel();
    fireEvent.change(screen.getByTestId('notify-search'), { target: { value: '进区域' } });
    const enter = await screen.findByTestId('notify-windowEnable-fence_enter');
    expect(screen.getByText('进区域报警')).toBeTruthy();
    expect(screen.getByText('进区域报警(终端)')).toBeTruthy(); // the terminal's own 0x12 item has its own rule
    expect(screen.getByTestId('notify-source-fence_enter').textContent).toBe('系统默认');
    fireEvent.click(enter);
    fireEvent.click(screen.getByTestId('notify-save'));
    await waitFor(() => expect(puts().length).toBe(1));
    expect(putBody(0).alarmRule).toEqual({
      fence_enter: { disabled: false, windowEnable: false, voiceEnable: false, voice: null, startHour: 0, endHour: 24 },
    });
  }, 60_000);
});
