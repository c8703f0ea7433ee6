import { fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, test, vi, type Mock } from 'vitest';
import '../../../i18n';
import { MemoryRouter } from 'react-router';
import { session } from '../../../auth/session';
import AppProviders from '../../../components/AppProviders';
import { SettingsProvider } from '../../../layouts/settings/SettingsContext';
import OriginalMessageScreen from '../../../screens/log/originalMessage';
import { field } from '../../../test/listFixtures';
import { clearMetaCache } from '../../list/api';
import type { EntityMeta } from '../../list/types';

const ok = (data: unknown) => new Response(JSON.stringify({ code: 0, message: 'ok', data }), { headers: { 'Content-Type': 'application/json' } });

/** originalMessage as api/query/entities_messages.py declares it. */
const ORIGINAL: EntityMeta = {
  name: 'originalMessage', idField: 'key', permission: 'originalMessage', writable: false,
  fields: [
    field('key', { filterable: false, sortable: false }), field('time', { type: 'time', exportable: true }),
    field('carId', { type: 'int', ref: 'carView' }), field('plateNumber'), field('deviceId', { type: 'int' }),
    field('phone'), field('direction', { type: 'int', enum: [0, 1] }),
    field('protocol', { enum: ['jt808', 'gb32960', 'gb17691', 'hj1239', 'db4403t363'] }), field('msgId', { type: 'int' }),
    field('seq', { type: 'int' }), field('rawHex', { filterable: false, sortable: false }),
    field('rawTruncated', { type: 'bool' }), field('decoded', { filterable: false, sortable: false }),
    field('access', { sortable: false, enum: ['accepted', 'wrong_code'] }),
  ],
};
const CAR_VIEW: EntityMeta = { name: 'carView', idField: 'carId', permission: 'car', fields: [field('carId', { type: 'int' }), field('plateNumber')] };
const FRAME = '7e020000220138000000010001000000000000000302610b0006f0ab00320168005a2604120900007e';
const ROW = {
  key: '9-1775984400000000-0-512-1', time: '2026-04-12T09:00:00+00:00', carId: 5, plateNumber: '京A12345', deviceId: 9,
  phone: '13800000001', direction: 0, protocol: 'jt808', msgId: 512, seq: 1, rawHex: FRAME, rawTruncated: false, access: null,
  decoded: '{"header":{"msg_id":512,"seq":1},"body":{"speed_kmh":36.0}}',
};

let fetchMock: Mock<(url: string, init?: RequestInit) => Promise<Response>>;

beforeEach(() => {
  clearMetaCache();
  fetchMock = vi.fn(async (url: string) => {
    if (url.startsWith('/api/common/meta/originalMessage.json')) return ok(ORIGINAL);
    if (url.startsWith('/api/common/meta/carView.json')) return ok(CAR_VIEW);
    if (url.startsWith('/api/common/query/carView.json')) return ok({ list: [{ carId: 5, plateNumber: '京A12345' }], pageNo: 1, pageSize: 1000 });
    if (url.startsWith('/api/common/query/originalMessage.json')) return ok({ list: [ROW], total: 1, pageNo: 1, pageSize: 10 });
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
  session.setToken({ access_token: 'tok', refresh_token: 'r', expires_in: 3600 });
  session.setUser({ id: 1, userName: 'ops', permissions: [{ code: 'originalMessage', actions: ['query', 'export'] }], routes: [] });
});

afterEach(() => {
  session.clear();
  vi.unstubAllGlobals();
});

describe('the original message log', () => {
  test('a row shows the message id as 0x0200 and its first bytes; its detail the decoded JSON and every byte', async () => {
    render(
      <SettingsProvider>
        <AppProviders>
          <MemoryRouter initialEntries={['/log/originalMessage?carId=5']}>
            <OriginalMessageScreen />
          </MemoryRouter>
        </AppProviders>
      </SettingsProvider>,
    );
    expect((await screen.findByTestId('list-total', {}, { timeout: 10_000 })).textContent).toBe('共 1 条数据');
    const table = screen.getByTestId('list-table');
    expect(within(table).getByText('0x0200')).toBeTruthy();
    expect(within(table).getByText('上行')).toBeTruthy();
    expect(within(table).getByText('JT/T 808')).toBeTruthy();
    expect(within(table).getByText('7E 02 00 00 22 01 38 00 00 00 01 00 …')).toBeTruthy();
    fireEvent.click(screen.getByTestId(`row-detail-${ROW.key}`));
    const hex = await screen.findByTestId('message-hex');
    expect(hex.textContent?.split('\n')[0]).toBe('7E 02 00 00 22 01 38 00 00 00 01 00 01 00 00 00');
    expect(hex.textContent?.replace(/\s/g, '').toLowerCase()).toBe(FRAME);
    expect(screen.getByTestId('message-decoded').textContent).toContain('"speed_kmh": 36');
    expect(screen.getByTestId('message-msg-id').textContent).toBe('0x0200');
  });
});
