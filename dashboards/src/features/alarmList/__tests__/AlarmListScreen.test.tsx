import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, test, vi, type Mock } from 'vitest';
import '../../../i18n';
import { MemoryRouter } from 'react-router';
import { session } from '../../../auth/session';
import type { Permission } from '../../../auth/types';
import AppProviders from '../../../components/AppProviders';
import { SettingsProvider } from '../../../layouts/settings/SettingsContext';
import { field } from '../../../test/listFixtures';
import { clearMetaCache } from '../../list/api';
import type { EntityMeta } from '../../list/types';
import AlarmListScreen from '../AlarmListScreen';

const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
const ok = (data: unknown) => json({ code: 0, message: 'ok', data });

const META: EntityMeta = {
  name: 'alarm', idField: 'id', permission: 'alarm', writable: true,
  fields: [
    field('id', { type: 'int' }), field('plateNumber', { exportable: true }), field('desc', { exportable: true }),
    field('key'), field('carId', { type: 'int' }),
    field('type', { type: 'int', enum: [1, 2, 3, 4, 5, 6, 7, 8], exportable: true }), field('level', { type: 'int' }),
    field('startTime', { type: 'time', exportable: true }), field('endTime', { type: 'time' }), field('speed', { type: 'float' }),
    field('driverName'), field('address'), field('state', { type: 'int', enum: [0, 1, 2, 3, 4], update: true }),
    field('opinion', { update: true, filterable: false }), field('confirmName'), field('confirmTime', { type: 'time' }),
  ],
};
const START = '2026-11-25T02:00:00+00:00';
const ROWS = [
  { id: 5, plateNumber: '京A10001', desc: '紧急报警', key: 'a0', carId: 3, type: 1, level: null, startTime: START, state: 0 },
  { id: 6, plateNumber: '京A10002', desc: '一级 前向碰撞报警', key: 'adas_1', carId: null, type: 5, level: 1, startTime: START, state: 2, opinion: '告警已忽略' },
];

let fetchMock: Mock<(url: string, init?: RequestInit) => Promise<Response>>;
const calls = (prefix: string) => fetchMock.mock.calls.filter(([url]) => url.startsWith(prefix));

function signIn(permissions: Permission[]) {
  session.setToken({ access_token: 'tok', refresh_token: 'r', expires_in: 3600 });
  session.setUser({ id: 1, userName: 'ops', permissions, routes: [] });
}

function renderList(entity: 'alarm' | 'myAlarm' = 'alarm') {
  render(
    <SettingsProvider><AppProviders><MemoryRouter><AlarmListScreen entity={entity} /></MemoryRouter></AppProviders></SettingsProvider>,
  );
  return screen.findByTestId('list-total', {}, { timeout: 10_000 });
}

beforeEach(() => {
  clearMetaCache();
  fetchMock = vi.fn(async (url: string) => {
    if (url.startsWith('/api/common/meta/alarm.json') || url.startsWith('/api/common/meta/myAlarm.json')) return ok(META);
    if (url.startsWith('/api/common/query/alarm.json') || url.startsWith('/api/common/query/myAlarm.json')) {
      return ok({ list: ROWS, total: 2, pageNo: 1, pageSize: 10 });
    }
    return ok({ alarm: ROWS[0], commandId: null });
  });
  vi.stubGlobal('fetch', fetchMock);
});

afterEach(() => {
  session.clear();
  vi.unstubAllGlobals();
});

describe('the alarm management list', () => {
  test('rows in the subtree with descriptions, type and state names; handle and ignore only while unhandled', async () => {
    signIn([{ code: 'alarm', actions: ['query', 'get', 'update', 'export'] }]);
    await renderList();
    const table = screen.getByTestId('list-table');
    expect(within(table).getByText('一级 前向碰撞报警')).toBeTruthy();
    expect(within(table).getByText('ADAS报警')).toBeTruthy();
    expect(within(table).getByText('一级')).toBeTruthy();
    expect(within(table).getByText('未处理')).toBeTruthy();
    expect(calls('/api/common/query/alarm.json')[0][0]).not.toContain('isParent'); // the server's subtree
    expect(screen.getByTestId('row-handle-5')).toBeTruthy();
    expect(screen.getByTestId('row-ignore-5')).toBeTruthy();
    expect(screen.queryByTestId('row-handle-6')).toBeNull();
    expect(screen.queryByTestId('row-ignore-6')).toBeNull();
    expect(screen.queryByTestId('row-edit-5')).toBeNull(); // handling goes through the dialog, not the edit drawer
    expect(screen.getByTestId('row-detail-5').getAttribute('href')).toBe('/list/alarmDetail?id=5');
    expect(screen.getByTestId('row-track-5').getAttribute('href')).toMatch(/^\/dashboard\/trace\?carId=3&start=\d+&end=\d+$/);
    expect(screen.queryByTestId('row-track-6')).toBeNull(); // no vehicle
    expect(screen.getByTestId('list-export-xlsx')).toBeTruthy();
  });

  test('ignore asks first, then posts the ignore and reloads', async () => {
    signIn([{ code: 'alarm', actions: ['query', 'get', 'update'] }]);
    await renderList();
    fireEvent.click(screen.getByTestId('row-ignore-5'));
    fireEvent.click(await screen.findByTestId('alarm-ignore-ok'));
    await waitFor(() => expect(calls('/api/common/alarm/5/ignore.json').length).toBe(1));
    expect(calls('/api/common/alarm/5/ignore.json')[0][1]?.method).toBe('POST');
    await waitFor(() => expect(calls('/api/common/query/alarm.json').length).toBe(2));
  });

  test('"my alarms" ask for the own enterprise only; the other lists get the subtree by default', async () => {
    signIn([{ code: 'alarm', actions: ['query', 'get'] }]);
    await renderList('myAlarm');
    expect(calls('/api/common/query/')[0][0]).toContain('isParent=false');
  });

  test('without the update action: no handle or ignore', async () => {
    signIn([{ code: 'alarm', actions: ['query', 'get'] }]);
    await renderList();
    expect(screen.queryByTestId('row-handle-5')).toBeNull();
    expect(screen.queryByTestId('row-ignore-5')).toBeNull();
    expect(screen.getByTestId('row-detail-5')).toBeTruthy();
  });
});
