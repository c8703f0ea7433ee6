import dayjs from 'dayjs';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, onTestFinished, test, vi, type Mock } from 'vitest';
import i18n from '../../../i18n';
import { MemoryRouter } from 'react-router';
import { session } from '../../../auth/session';
import type { Permission } from '../../../auth/types';
import AppProviders from '../../../components/AppProviders';
import { SettingsProvider } from '../../../layouts/settings/SettingsContext';
import { CATALOGUE } from '../../../test/listFixtures';
import { clearMetaCache, fetchMeta } from '../api';
import ListPage from '../ListPage';
import { defineListScreen } from '../types';

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
const ok = (data: unknown) => json({ code: 0, message: 'ok', data });

const ROWS = [
  { id: 11, name: '解放J6P', code: 'J6P', remark: null, createTime: '2026-11-01T02:00:00+00:00' },
  { id: 12, name: '东风天龙H5', code: 'H5', remark: '牵引车', createTime: '2026-11-02T02:00:00+00:00' },
];

let fetchMock: Mock<(url: string, init?: RequestInit) => Promise<Response>>;
let createReplies: Response[];

/** The requests to a path (its query string aside). */
function calls(pathPrefix: string): { url: string; init: RequestInit }[] {
  return fetchMock.mock.calls.filter(([url]) => url.startsWith(pathPrefix)).map(([url, init]) => ({ url, init: init ?? {} }));
}
const path = (url: string) => url.split('?')[0];

function signIn(permissions: Permission[]) {
  session.setToken({ access_token: 'tok', refresh_token: 'r', expires_in: 3600 });
  session.setUser({ id: 1, userName: 'ops', permissions, routes: [] });
}

/** The first render of antd in jsdom is slow on a busy machine. */
const loaded = () => screen.findByTestId('list-total', {}, { timeout: 10_000 });

const carModels = defineListScreen({ entity: 'carModel', namespace: 'catalogue:carModel' });

function renderList() {
  return render(
    <SettingsProvider>
      <AppProviders>
        <MemoryRouter>
          <ListPage screen={carModels} />
        </MemoryRouter>
      </AppProviders>
    </SettingsProvider>,
  );
}

beforeEach(() => {
  clearMetaCache();
  createReplies = [];
  fetchMock = vi.fn(async (url: string) => {
    if (url.startsWith('/api/common/meta/carModel.json')) return ok(CATALOGUE);
    if (url.startsWith('/api/common/query/carModel.json')) return ok({ list: ROWS, total: 2, pageNo: 1, pageSize: 10 });
    if (url === '/api/common/carModel.json') return createReplies.shift() ?? ok({ id: 13 });
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
});

afterEach(() => {
  session.clear();
  vi.unstubAllGlobals();
});

const ALL = ['add', 'delete', 'update', 'query', 'get', 'import', 'export'];

describe('the list page', () => {
  test('columns and rows from the declaration, server paging, "共 N 条数据"', async () => {
    signIn([{ code: 'carModel', actions: ALL }]);
    renderList();
    expect((await loaded()).textContent).toBe('共 2 条数据');
    const table = screen.getByTestId('list-table');
    for (const title of ['车辆型号', '型号编码', '备注', '创建时间']) expect(within(table).getAllByText(title).length).toBeGreaterThan(0);
    expect(within(table).getByText('解放J6P')).toBeTruthy();
    expect(within(table).getByText(dayjs(ROWS[0].createTime).format('YYYY-MM-DD HH:mm:ss'))).toBeTruthy(); // the browser's local time
    const [query] = calls('/api/common/query/carModel.json');
    expect(query.url).toContain('pageNo=1');
    expect(query.url).toContain('pageSize=10');
    expect(query.url).toContain('countable=true');
    expect(query.init.method).toBe('POST');
  });

  test('with its meta answered before it opens (the opening prefetch), the table is in its first render', async () => {
    signIn([{ code: 'carModel', actions: ALL }]);
    await fetchMeta('carModel');
    renderList();
    expect(screen.getByTestId('list-table')).toBeTruthy(); // no spinner pass before the table
    expect((await loaded()).textContent).toBe('共 2 条数据');
    expect(calls('/api/common/meta/carModel.json').length).toBe(1);
  });

  test('the first rows are painted before the filter bar renders (its widgets and their calls come after)', async () => {
    signIn([{ code: 'carModel', actions: ALL }]);
    renderList();
    await loaded();
    expect(within(screen.getByTestId('list-table')).getByText('解放J6P')).toBeTruthy();
    expect(screen.queryByTestId('list-filters')).toBeNull();
    expect(screen.getByTestId('list-filters-pending')).toBeTruthy();
    expect(await screen.findByTestId('list-filters')).toBeTruthy();
    expect(screen.queryByTestId('list-filters-pending')).toBeNull();
  });

  test('the filter bar searches by contains from page 1', async () => {
    signIn([{ code: 'carModel', actions: ALL }]);
    renderList();
    await loaded();
    fireEvent.change(await screen.findByTestId('list-filter-name'), { target: { value: 'J6' } });
    fireEvent.click(screen.getByTestId('list-search'));
    await waitFor(() => expect(calls('/api/common/query/carModel.json').length).toBe(2));
    const last = calls('/api/common/query/carModel.json')[1];
    expect(JSON.parse(String(last.init.body))).toEqual({ 'name.like': 'J6' });
  });

  test('searching again with the same filters reads the list again (rows added since show)', async () => {
    signIn([{ code: 'carModel', actions: ALL }]);
    renderList();
    await loaded();
    await screen.findByTestId('list-search');
    fireEvent.click(screen.getByTestId('list-search'));
    await waitFor(() => expect(calls('/api/common/query/carModel.json').length).toBe(2));
    fireEvent.click(screen.getByTestId('list-search'));
    await waitFor(() => expect(calls('/api/common/query/carModel.json').length).toBe(3));
  });

  test('actions follow the permissions; the server\'s "update" grants the edit action', async () => {
    signIn([{ code: 'carModel', actions: ['query', 'update'] }]);
    renderList();
    await loaded();
    expect(screen.queryByTestId('list-create')).toBeNull();
    expect(screen.queryByTestId('list-bulk-delete')).toBeNull();
    expect(screen.queryByTestId('list-import')).toBeNull();
    expect(screen.queryByTestId('list-export-xlsx')).toBeNull();
    expect(screen.queryByTestId('row-delete-11')).toBeNull();
    expect(screen.getByTestId('row-edit-11')).toBeTruthy();
  });

  test("a save refused by the server shows its message on the field it names, then saves", async () => {
    signIn([{ code: 'carModel', actions: ALL }]);
    createReplies.push(json({ code: 409, message: 'code 已存在 (carModel with this code already exists)', data: { field: 'code' } }, 409));
    renderList();
    await loaded();
    fireEvent.click(screen.getByTestId('list-create'));
    fireEvent.change(await screen.findByTestId('record-field-name'), { target: { value: '新型号' } });
    fireEvent.change(screen.getByTestId('record-field-code'), { target: { value: 'J6P' } });
    fireEvent.click(screen.getByTestId('record-save'));
    expect(await screen.findByText('code 已存在 (carModel with this code already exists)')).toBeTruthy();
    const [create] = calls('/api/common/carModel.json');
    expect(JSON.parse(String(create.init.body))).toEqual({ name: '新型号', code: 'J6P' });

    fireEvent.change(screen.getByTestId('record-field-code'), { target: { value: 'J7' } });
    fireEvent.click(screen.getByTestId('record-save'));
    await waitFor(() => expect(calls('/api/common/carModel.json').length).toBe(2));
    await waitFor(() => expect(calls('/api/common/query/carModel.json').length).toBe(2)); // the list reloads
  });

  test('the form checks the declaration before asking the server', async () => {
    signIn([{ code: 'carModel', actions: ALL }]);
    renderList();
    await loaded();
    fireEvent.click(screen.getByTestId('list-create'));
    fireEvent.change(await screen.findByTestId('record-field-code'), { target: { value: 'has space' } });
    fireEvent.click(screen.getByTestId('record-save'));
    expect(await screen.findByText('型号编码格式不正确')).toBeTruthy();
    expect(await screen.findByText('请输入车辆型号')).toBeTruthy();
    expect(calls('/api/common/carModel.json')).toEqual([]);
  });

  test('import and export need their actions and fields the declaration marks importable / exportable', async () => {
    signIn([{ code: 'carModel', actions: ['query', 'import', 'export'] }]);
    const { unmount } = renderList();
    await loaded();
    expect(screen.getByTestId('list-import')).toBeTruthy();
    expect(screen.getByTestId('list-export-csv')).toBeTruthy();
    unmount();
    clearMetaCache();
    const plain = { ...CATALOGUE, fields: CATALOGUE.fields.map((f) => ({ ...f, importable: false, exportable: false })) };
    fetchMock.mockImplementation(async (url: string) =>
      url.startsWith('/api/common/meta/') ? ok(plain) : ok({ list: ROWS, total: 2, pageNo: 1, pageSize: 10 }));
    renderList();
    await loaded();
    expect(screen.queryByTestId('list-import')).toBeNull();
    expect(screen.queryByTestId('list-export-csv')).toBeNull();
  });

  test('export posts the current filters and order to the export route', async () => {
    signIn([{ code: 'carModel', actions: ['query', 'export'] }]);
    const created: Blob[] = [];
    // jsdom has no object URLs: saving the file is where the blob reaches the browser
    URL.createObjectURL = (blob: Blob) => (created.push(blob), 'blob:x');
    URL.revokeObjectURL = () => undefined;
    onTestFinished(() => {
      Reflect.deleteProperty(URL, 'createObjectURL');
      Reflect.deleteProperty(URL, 'revokeObjectURL');
    });
    renderList();
    await loaded();
    fireEvent.change(await screen.findByTestId('list-filter-code'), { target: { value: 'J' } });
    fireEvent.click(screen.getByTestId('list-search'));
    await waitFor(() => expect(calls('/api/common/query/carModel.json').length).toBe(2));
    fireEvent.click(screen.getByTestId('list-export-xlsx'));
    await waitFor(() => expect(created.length).toBe(1));
    const [exported] = calls('/api/common/export/carModel.xlsx');
    expect(exported.init.method).toBe('POST');
    expect(JSON.parse(String(exported.init.body))).toEqual({ 'code.like': 'J' });
  });

  test('bulk delete asks, deletes each selected row and reloads the list', async () => {
    signIn([{ code: 'carModel', actions: ALL }]);
    renderList();
    await loaded();
    const table = screen.getByTestId('list-table');
    for (const box of within(table).getAllByRole('checkbox').slice(1)) fireEvent.click(box); // both rows
    fireEvent.click(screen.getByTestId('list-bulk-delete'));
    fireEvent.click(await screen.findByTestId('bulk-delete-ok'));
    await waitFor(() => expect(calls('/api/common/carModel/').map((c) => `${c.init.method} ${path(c.url)}`)).toEqual([
      'DELETE /api/common/carModel/11.json', 'DELETE /api/common/carModel/12.json',
    ]));
    await waitFor(() => expect(calls('/api/common/query/carModel.json').length).toBe(2));
  });

  test('edit opens the drawer with the row and sends a PATCH of the update fields', async () => {
    signIn([{ code: 'carModel', actions: ['query', 'update'] }]);
    renderList();
    await loaded();
    fireEvent.click(screen.getByTestId('row-edit-12'));
    const name = (await screen.findByTestId('record-field-name')) as HTMLInputElement;
    expect(name.value).toBe('东风天龙H5');
    fireEvent.change(name, { target: { value: '东风天龙KL' } });
    fireEvent.click(screen.getByTestId('record-save'));
    await waitFor(() => expect(calls('/api/common/carModel/12.json').length).toBe(1));
    const [patch] = calls('/api/common/carModel/12.json');
    expect(patch.init.method).toBe('PATCH');
    expect(JSON.parse(String(patch.init.body))).toEqual({ name: '东风天龙KL', code: 'H5', remark: '牵引车' });
  });
});

describe('the list page and the language', () => {
  test('a language switch reads the page again, in the new language', async () => {
    signIn([{ code: 'carModel', actions: ALL }]);
    renderList();
    await loaded();
    const before = calls('/api/common/query/carModel.json').length;
    await i18n.changeLanguage('en-US');
    onTestFinished(async () => {
      await i18n.changeLanguage('zh-CN');
    });
    await waitFor(() => expect(calls('/api/common/query/carModel.json').length).toBe(before + 1));
    const last = calls('/api/common/query/carModel.json').at(-1)!;
    expect((last.init.headers as Record<string, string>)['X-Fleet-Language']).toBe('en-US');
  });
});
