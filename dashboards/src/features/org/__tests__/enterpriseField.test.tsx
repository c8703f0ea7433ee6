import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, test, vi, type Mock } from 'vitest';
import '../../../i18n';
import { MemoryRouter } from 'react-router';
import { session } from '../../../auth/session';
import AppProviders from '../../../components/AppProviders';
import { SettingsProvider } from '../../../layouts/settings/SettingsContext';
import { field } from '../../../test/listFixtures';
import { clearMetaCache } from '../../list/api';
import ListPage from '../../list/ListPage';
import { defineListScreen, type EntityMeta } from '../../list/types';
import { enterpriseNames, lineageOf, roleLabel } from '../enterprises';

const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
const ok = (data: unknown) => json({ code: 0, message: 'ok', data });

const TREE = [{ id: 1, shortName: '集团', type: 1, state: 1, children: [
  { id: 5, shortName: '子公司A', type: 3, state: 1, children: [] },
  { id: 6, shortName: '子公司B', type: 3, state: 1, children: [] },
] }];

describe('enterprise names and role labels', () => {
  test('every enterprise of the tree has its name', () => {
    expect([...enterpriseNames(TREE).entries()]).toEqual([[1, '集团'], [5, '子公司A'], [6, '子公司B']]);
  });

  test("a user's lineage is its enterprise and its ancestors, never a sibling", () => {
    expect([...lineageOf(TREE, 5)]).toEqual([1, 5]);
    expect([...lineageOf(TREE, 1)]).toEqual([1]);
    expect(lineageOf(TREE, 99).size).toBe(0);
  });

  test('roles of the same name read apart by their enterprise', () => {
    const names = enterpriseNames(TREE);
    expect(roleLabel('管理员', 5, names)).toBe('管理员 (子公司A)');
    expect(roleLabel('管理员', 6, names)).toBe('管理员 (子公司B)');
    expect(roleLabel('管理员', 99, names)).toBe('管理员');
  });
});

const CAR: EntityMeta = {
  name: 'car', idField: 'id', permission: 'car', writable: true,
  fields: [
    field('id', { type: 'int' }),
    field('enterpriseId', { type: 'int', create: true }),
    field('plateNumber', { required: true, create: true, update: true }),
  ],
};

let fetchMock: Mock<(url: string, init?: RequestInit) => Promise<Response>>;
const writes = () => fetchMock.mock.calls.filter(([url, init]) => init?.method === 'POST' && url.startsWith('/api/common/car.json'));

beforeEach(() => {
  clearMetaCache();
  fetchMock = vi.fn(async (url: string) => {
    if (url.startsWith('/api/common/meta/car.json')) return ok(CAR);
    if (url.startsWith('/api/aas/subsidiary.json')) return ok(TREE);
    if (url.startsWith('/api/common/query/car.json')) return ok({ list: [{ id: 9, enterpriseId: 6, plateNumber: '京A00001' }], total: 1, pageNo: 1, pageSize: 10 });
    return ok({ id: 10, enterpriseId: 1, plateNumber: '京A00002' });
  });
  vi.stubGlobal('fetch', fetchMock);
  session.setToken({ access_token: 'tok', refresh_token: 'r', expires_in: 3600 });
  session.setUser({ id: 1, userName: 'admin', enterpriseId: 1, permissions: [{ code: 'car', actions: ['add', 'update', 'query'] }], routes: [] });
  const cars = defineListScreen({ entity: 'car', namespace: 'fleet:car', columns: ['plateNumber', 'enterpriseId'], form: ['enterpriseId', 'plateNumber'] });
  render(<SettingsProvider><AppProviders><MemoryRouter><ListPage screen={cars} /></MemoryRouter></AppProviders></SettingsProvider>);
});

afterEach(() => {
  session.clear();
  vi.unstubAllGlobals();
});

const SLOW = 30_000;

describe('the tenant column and the enterprise form field', () => {
  test('the list shows the enterprise name, not its id', async () => {
    const table = await screen.findByTestId('list-table', {}, { timeout: 10_000 });
    expect(await within(table).findByText('子公司B')).toBeTruthy();
  }, SLOW);

  test('a new vehicle goes to the caller\'s own enterprise unless another is chosen', async () => {
    await screen.findByTestId('list-total', {}, { timeout: 10_000 });
    fireEvent.click(screen.getByTestId('list-create'));
    fireEvent.change(await screen.findByTestId('record-field-plateNumber'), { target: { value: '京A00002' } });
    fireEvent.click(screen.getByTestId('record-save'));
    await waitFor(() => expect(writes().length).toBe(1));
    expect(JSON.parse(String(writes()[0][1]?.body))).toEqual({ enterpriseId: 1, plateNumber: '京A00002' });
  }, SLOW);
});
