import { render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import '../../../i18n';
import { MemoryRouter } from 'react-router';
import AppProviders from '../../../components/AppProviders';
import { SettingsProvider } from '../../../layouts/settings/SettingsContext';
import LicenceOverviewScreen from '../../../screens/settings/license';
import PlatformParamScreen from '../../../screens/settings/param';

const ok = (data: unknown) => new Response(JSON.stringify({ code: 0, message: 'ok', data }), { status: 200, headers: { 'Content-Type': 'application/json' } });

const PARAMS = [
  { name: 'noticeInsuranceDays', id: 1, type: 'int', unit: 'day', value: 45, default: 30, min: 0, max: 3650, options: null, updatedBy: 'admin', updatedAt: '2026-03-01T02:00:00Z' },
  { name: 'mapDefaultBaseLayer', id: 7, type: 'choice', unit: null, value: 'osm', default: 'osm', min: null, max: null, options: ['blank', 'osm'], updatedBy: null, updatedAt: null },
];
const LICENCE = {
  community: false, machineCode: 'ABCDE-12345', vehiclesUsed: 12, vehiclesAllowed: 100, daysLeft: 20, expired: false, expiring: true, warningDays: 30,
  licence: { id: 'L1', licensee: '示范物流', enterprise: '示范物流有限公司', maxVehicles: 100, validFrom: '2026-01-01', validTo: '2026-03-21', features: [], installedBy: 'admin', installedAt: '2026-01-01T00:00:00Z' },
};

beforeEach(() => {
  vi.stubGlobal('fetch', vi.fn(async (url: string) => {
    if (url === '/api/system/param.json') return ok(PARAMS);
    if (url === '/api/license/detail.json') return ok(LICENCE);
    return ok(null);
  }));
});
afterEach(() => vi.unstubAllGlobals());

const renderPage = (page: React.ReactNode) => render(<SettingsProvider><AppProviders><MemoryRouter>{page}</MemoryRouter></AppProviders></SettingsProvider>);

describe('the platform parameters screen', () => {
  test('shows each parameter with its label, current value, default, unit and who changed it', async () => {
    renderPage(<PlatformParamScreen />);
    expect((await screen.findByTestId('param-value-noticeInsuranceDays', {}, { timeout: 10_000 })).textContent).toBe('45');
    expect(screen.getByText('车辆保险到期提醒')).toBeTruthy();
    expect(screen.getByTestId('param-value-mapDefaultBaseLayer').textContent).toBe('OpenStreetMap');
    expect(screen.getByTestId('param-updated-noticeInsuranceDays').textContent).toContain('admin');
    expect(screen.queryByTestId('param-save-noticeInsuranceDays')).toBeNull(); // no system:update: read only
  });
});

describe('the licence overview', () => {
  test('warns inside the warning window and shows usage, expiry and machine code', async () => {
    renderPage(<LicenceOverviewScreen />);
    expect((await screen.findByTestId('licence-overview-state', {}, { timeout: 10_000 })).textContent).toBe('即将到期');
    expect(screen.getByTestId('licence-overview-warning').textContent).toContain('20');
    expect(screen.getByTestId('licence-overview-usage').textContent).toBe('12 / 100');
    expect(screen.getByTestId('licence-overview-valid-to').textContent).toBe('2026-03-21');
    expect(screen.getByTestId('licence-overview-machine-code').textContent).toBe('ABCDE-12345');
  });
});
