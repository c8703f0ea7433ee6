import { render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import '../../../i18n';
import AppProviders from '../../../components/AppProviders';
import { SettingsProvider } from '../../../layouts/settings/SettingsContext';
import SystemMonitorScreen from '../../../screens/settings/system';
import { formatBytes } from '../model';

const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });

const SNAPSHOT = {
  at: '2026-11-24T10:00:00+00:00',
  gateway: { available: true, online: 180, registered: 200, lastOnlineTime: '2026-11-24T09:59:00+00:00' },
  kafka: { available: false, error: 'NoBrokersAvailable: NoBrokersAvailable' },
  database: { available: true, name: 'fleet', sizeBytes: 52_428_800, connections: 7, version: '15.8', tables: [{ name: 'gps', sizeBytes: 41_943_040, estimatedRows: 250000 }] },
  throughput: { available: true, windowMinutes: 5, positions: 12000, positionsPerMinute: 2400, lastReceivedAt: null },
};

beforeEach(() => vi.stubGlobal('fetch', vi.fn(async () => json({ code: 0, message: 'ok', data: SNAPSHOT }))));
afterEach(() => vi.unstubAllGlobals());

describe('the system monitor', () => {
  test('shows each readable section and says which service could not be read', async () => {
    render(<SettingsProvider><AppProviders><SystemMonitorScreen /></AppProviders></SettingsProvider>);
    const database = await screen.findByTestId('monitor-database', {}, { timeout: 10_000 });
    expect(within(database).getByTestId('monitor-database-size').textContent).toBe('50.0 MiB');
    expect(within(screen.getByTestId('monitor-gateway')).getByText('180')).toBeTruthy();
    expect(screen.getByTestId('monitor-kafka-unavailable').textContent).toContain('NoBrokersAvailable');
    expect(within(screen.getByTestId('monitor-tables')).getByText('gps')).toBeTruthy();
  });

  test('formats sizes in binary units', () => {
    expect([formatBytes(512), formatBytes(1536), formatBytes(3 * 1024 ** 3), formatBytes(undefined)]).toEqual(['512 B', '1.5 KiB', '3.0 GiB', '']);
  });
});
