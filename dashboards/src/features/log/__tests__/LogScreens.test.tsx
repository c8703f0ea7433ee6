import { render, screen, waitFor, within } from '@testing-library/react';
import dayjs from 'dayjs';
import { afterEach, beforeEach, describe, expect, test, vi, type Mock } from 'vitest';
import '../../../i18n';
import { MemoryRouter } from 'react-router';
import { session } from '../../../auth/session';
import AppProviders from '../../../components/AppProviders';
import { SettingsProvider } from '../../../layouts/settings/SettingsContext';
import ParkLogScreen from '../../../screens/log/park';
import { field } from '../../../test/listFixtures';
import { clearMetaCache } from '../../list/api';
import type { EntityMeta } from '../../list/types';

const ok = (data: unknown) => new Response(JSON.stringify({ code: 0, message: 'ok', data }), { headers: { 'Content-Type': 'application/json' } });

/** parkLog as api/query/entities_logs.py declares it. */
const PARK_LOG: EntityMeta = {
  name: 'parkLog', idField: 'startTime', permission: 'parkLog', writable: false,
  fields: [
    field('startTime', { type: 'time', exportable: true }), field('endTime', { type: 'time', exportable: true }),
    field('durationS', { type: 'int', exportable: true }), field('carId', { type: 'int', ref: 'carView' }),
    field('plateNumber', { exportable: true }), field('deviceId', { type: 'int' }), field('lng', { type: 'float' }),
    field('lat', { type: 'float' }), field('address', { exportable: true }), field('ongoing', { type: 'bool' }),
  ],
};
const CAR_VIEW: EntityMeta = { name: 'carView', idField: 'carId', permission: 'car', fields: [field('carId', { type: 'int' }), field('plateNumber')] };
const STOP = { startTime: '2026-04-10T23:55:00+00:00', endTime: '2026-04-11T00:10:00+00:00', durationS: 3723, carId: 5,
  plateNumber: '京A12345', deviceId: 9, lng: 116.39, lat: 39.91, address: '北京市东城区', ongoing: true };

let fetchMock: Mock<(url: string, init?: RequestInit) => Promise<Response>>;
const queries = () => fetchMock.mock.calls.filter(([url]) => url.startsWith('/api/common/query/parkLog.json'));

function open(url: string) {
  return render(
    <SettingsProvider>
      <AppProviders>
        <MemoryRouter initialEntries={[url]}>
          <ParkLogScreen />
        </MemoryRouter>
      </AppProviders>
    </SettingsProvider>,
  );
}

beforeEach(() => {
  clearMetaCache();
  fetchMock = vi.fn(async (url: string) => {
    if (url.startsWith('/api/common/meta/parkLog.json')) return ok(PARK_LOG);
    if (url.startsWith('/api/common/meta/carView.json')) return ok(CAR_VIEW);
    if (url.startsWith('/api/common/query/carView.json')) return ok({ list: [{ carId: 5, plateNumber: '京A12345' }], pageNo: 1, pageSize: 1000 });
    if (url.startsWith('/api/common/query/parkLog.json')) return ok({ list: [STOP], total: 1, pageNo: 1, pageSize: 10 });
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
  session.setToken({ access_token: 'tok', refresh_token: 'r', expires_in: 3600 });
  session.setUser({ id: 1, userName: 'ops', permissions: [{ code: 'parkLog', actions: ['query', 'export'] }], routes: [] });
});

afterEach(() => {
  session.clear();
  vi.unstubAllGlobals();
});

describe('the parking log screen', () => {
  test('?carId= preselects the vehicle and the list opens on today, its rows linking to the replay', async () => {
    open('/log/park?carId=5');
    expect((await screen.findByTestId('list-total', {}, { timeout: 10_000 })).textContent).toBe('共 1 条数据');
    const [[url, init]] = queries();
    expect(url).toContain('pageSize=10');
    const body = JSON.parse(String(init?.body)) as { 'carId.eq': number; rangeConditions: { fieldName: string; start: string; end: string }[] };
    expect(body['carId.eq']).toBe(5);
    expect(body.rangeConditions[0].fieldName).toBe('startTime');
    expect(dayjs(body.rangeConditions[0].start).valueOf()).toBe(dayjs().startOf('day').valueOf());
    expect(dayjs(body.rangeConditions[0].end).valueOf()).toBe(dayjs().endOf('day').valueOf());
    const table = screen.getByTestId('list-table');
    expect(within(table).getByText('北京市东城区')).toBeTruthy();
    expect(within(table).getByText('1小时2分3秒 (进行中)')).toBeTruthy();
    const replay = within(table).getByText('轨迹回放').closest('a');
    expect(replay?.getAttribute('href')).toBe('/dashboard/trace?carId=5&start=1775865300000&end=1775866200000');
  });

  test('without a vehicle it asks for one and sends no query', async () => {
    open('/log/park');
    expect((await screen.findByTestId('list-required', {}, { timeout: 10_000 })).textContent).toBe('请先选择车辆');
    await waitFor(() => expect(fetchMock.mock.calls.some(([url]) => url.startsWith('/api/common/meta/parkLog.json'))).toBe(true));
    expect(queries()).toHaveLength(0);
  });
});
