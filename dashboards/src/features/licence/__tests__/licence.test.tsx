import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, test, vi, type Mock } from 'vitest';
import '../../../i18n';
import { MemoryRouter } from 'react-router';
import AppProviders from '../../../components/AppProviders';
import { SettingsProvider } from '../../../layouts/settings/SettingsContext';
import ApplyLicence from '../../../pages/user/ApplyLicence';
import LicenceDetailScreen from '../../../screens/settings/licenseDetail';

const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
const ok = (data: unknown) => json({ code: 0, message: 'ok', data });

let fetchMock: Mock<(url: string, init?: RequestInit) => Promise<Response>>;

beforeEach(() => {
  fetchMock = vi.fn(async (url: string) => {
    if (url === '/api/license/machineCode.json') return ok({ machineCode: 'ABCDE-12345' });
    if (url === '/api/license/apply.json') return ok({ id: 1, machineCode: 'ABCDE-12345' });
    if (url === '/api/license/detail.json') {
      return ok({ community: true, machineCode: 'ABCDE-12345', licence: null, vehiclesUsed: 12, vehiclesAllowed: null, daysLeft: null, expired: false, expiring: false, warningDays: 30 });
    }
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => vi.unstubAllGlobals());

function renderPage(page: React.ReactNode) {
  return render(<SettingsProvider><AppProviders><MemoryRouter>{page}</MemoryRouter></AppProviders></SettingsProvider>);
}

const type = (testId: string, value: string) => fireEvent.change(screen.getByTestId(testId), { target: { value } });

describe('the licence application page', () => {
  test('shows the machine code and refuses a bad phone with the validator message', async () => {
    renderPage(<ApplyLicence />);
    await screen.findByTestId('apply-machine-code', {}, { timeout: 10_000 });
    await waitFor(() => expect(screen.getByTestId('apply-machine-code').textContent).toBe('ABCDE-12345'));
    type('apply-phone', '12345');
    fireEvent.click(screen.getByTestId('apply-submit'));
    expect(await screen.findByText('电话号码格式不正确')).toBeTruthy();
    expect(screen.getByText('请输入单位名称')).toBeTruthy();
    expect(fetchMock.mock.calls.some(([url]) => url === '/api/license/apply.json')).toBe(false);
  });

  test('submits the application and confirms it', async () => {
    renderPage(<ApplyLicence />);
    await screen.findByTestId('apply-company', {}, { timeout: 10_000 });
    type('apply-company', '示范物流有限公司');
    type('apply-contact', '张三');
    type('apply-phone', '13800000000');
    type('apply-email', 'ops@example.com');
    type('apply-vehicles', '120');
    fireEvent.click(screen.getByTestId('apply-submit'));
    await screen.findByTestId('licence-apply-done', {}, { timeout: 10_000 });
    const [, init] = fetchMock.mock.calls.find(([url]) => url === '/api/license/apply.json')!;
    expect(JSON.parse(String(init?.body))).toEqual({ company: '示范物流有限公司', contact: '张三', phone: '13800000000', email: 'ops@example.com', vehicles: 120 });
  });
});

describe('the licence detail screen', () => {
  test('says the installation is a community one when no licence is installed', async () => {
    renderPage(<LicenceDetailScreen />);
    expect((await screen.findByTestId('licence-community', {}, { timeout: 10_000 })).textContent).toContain('社区版');
    expect(screen.getByTestId('licence-usage').textContent).toContain('12 / 不限');
  });
});
