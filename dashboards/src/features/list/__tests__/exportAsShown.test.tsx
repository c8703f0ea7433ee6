import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, onTestFinished, test, vi, type Mock } from 'vitest';
import '../../../i18n';
import { MemoryRouter } from 'react-router';
import { session } from '../../../auth/session';
import AppProviders from '../../../components/AppProviders';
import { SettingsProvider } from '../../../layouts/settings/SettingsContext';
import { field } from '../../../test/listFixtures';
import { enumColumn, reportScreen } from '../../report/reportScreen';
import i18n from '../../../i18n';
import { clearMetaCache } from '../api';
import ListPage from '../ListPage';
import type { EntityMeta } from '../types';

const ok = (data: unknown) => new Response(JSON.stringify({ code: 0, message: 'ok', data }), { status: 200, headers: { 'Content-Type': 'application/json' } });

/** The car day report as the server declares it (api/query/entities_reports.py), a few fields. */
const CAR_DAY: EntityMeta = {
  name: 'carDayReport', idField: 'carId', permission: 'report', writable: false,
  fields: [
    field('date', { type: 'int', label: '日期', display: 'day', exportable: true }),
    field('carId', { type: 'int', label: '车辆' }),
    field('plateNumber', { label: '车牌号', exportable: true }),
    field('mileageKm', { type: 'float', label: '里程(km)', display: 'decimal', exportable: true }),
    field('mileageSource', { type: 'int', label: '里程来源', exportable: true }),
    field('driveS', { type: 'int', label: '行驶时长', display: 'duration', exportable: true }),
    field('active', { type: 'bool', label: '出车', display: 'flag', exportable: true }),
  ],
};
const ROW = { date: 20261130, carId: 7, plateNumber: '粤B12345', mileageKm: 316.6000000000058, mileageSource: 2, driveS: 3723, active: true };

let fetchMock: Mock<(url: string, init?: RequestInit) => Promise<Response>>;

beforeEach(() => {
  clearMetaCache();
  session.setToken({ access_token: 'tok', refresh_token: 'r', expires_in: 3600 });
  session.setUser({ id: 1, userName: 'ops', permissions: [{ code: 'report', actions: ['query', 'export'] }], routes: [] });
  fetchMock = vi.fn(async (url: string) => {
    if (url.startsWith('/api/common/meta/carDayReport.json')) return ok(CAR_DAY);
    if (url.startsWith('/api/common/query/carDayReport.json')) return ok({ list: [ROW], total: 1, pageNo: 1, pageSize: 10 });
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
});

afterEach(() => {
  session.clear();
  vi.unstubAllGlobals();
});

describe('a report\'s export', () => {
  test('is the table as shown: its titles and cell texts, not the raw fields of the server\'s file', async () => {
    const created: Blob[] = [];
    URL.createObjectURL = (blob: Blob) => (created.push(blob), 'blob:x');
    URL.revokeObjectURL = () => undefined;
    onTestFinished(() => {
      Reflect.deleteProperty(URL, 'createObjectURL');
      Reflect.deleteProperty(URL, 'revokeObjectURL');
    });
    const t = i18n.getFixedT('zh-CN', 'report');
    const report = reportScreen({ entity: 'carDayReport', namespace: 'report',
      columns: ['date', 'plateNumber', 'mileageKm', enumColumn('mileageSource', t), 'driveS', 'active'] });
    render(<SettingsProvider><AppProviders><MemoryRouter><ListPage screen={report} /></MemoryRouter></AppProviders></SettingsProvider>);
    const table = await screen.findByTestId('list-table', {}, { timeout: 10_000 });
    await waitFor(() => expect(table.textContent).toContain('粤B12345'));
    for (const shown of ['2026-11-30', '316.6', 'GPS', '1:02:03', '✓']) expect(table.textContent).toContain(shown);
    fireEvent.click(screen.getByTestId('list-export-csv'));
    await waitFor(() => expect(created.length).toBe(1));
    expect(fetchMock.mock.calls.some(([url]) => url.startsWith('/api/common/export/'))).toBe(false);
    const text = (await created[0].text()).replace(/^\uFEFF/, '');
    const [head, first] = text.trim().split('\r\n');
    const titles = [...table.querySelectorAll('thead th')].map((th) => th.textContent?.trim());
    expect(head.split(',')).toEqual(titles);
    expect(first.split(',')).toEqual(['2026-11-30', '粤B12345', '316.6', 'GPS', '1:02:03', '✓']);
  });
});
