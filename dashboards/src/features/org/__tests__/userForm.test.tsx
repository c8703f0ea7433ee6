import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, test, vi, type Mock } from 'vitest';
import '../../../i18n';
import { MemoryRouter } from 'react-router';
import { session } from '../../../auth/session';
import AppProviders from '../../../components/AppProviders';
import { SettingsProvider } from '../../../layouts/settings/SettingsContext';
import { field } from '../../../test/listFixtures';
import { validatePassword, validateUsername } from '../../../utils/validators';
import { clearMetaCache } from '../../list/api';
import ListPage from '../../list/ListPage';
import { defineListScreen, type EntityMeta } from '../../list/types';

const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
const ok = (data: unknown) => json({ code: 0, message: 'ok', data });

/** The user declaration as api/query/org_entities.py answers it (the fields the form uses). */
const USER: EntityMeta = {
  name: 'user', idField: 'id', permission: 'user', writable: true,
  fields: [
    field('id', { type: 'int' }),
    field('userName', { required: true, unique: true, create: true, update: true }),
    field('password', { required: true, secret: true, create: true, update: true, listable: false, filterable: false }),
    field('name', { maxLength: 32, create: true, update: true }),
  ],
};
const ROW = { id: 7, userName: 'op_one', name: '张三' };

let fetchMock: Mock<(url: string, init?: RequestInit) => Promise<Response>>;
/** The creates and updates sent (queries aside). */
const writes = () => fetchMock.mock.calls.filter(([url, init]) => ['POST', 'PATCH'].includes(init?.method ?? '') && !url.startsWith('/api/common/query/'));

const users = defineListScreen({
  entity: 'user', namespace: 'org:user', params: { isParent: true }, createDefaults: { enterpriseId: 5 },
  form: ['userName', 'password', 'name'], validators: { userName: validateUsername, password: validatePassword },
});

beforeEach(() => {
  clearMetaCache();
  fetchMock = vi.fn(async (url: string) => {
    if (url.startsWith('/api/common/meta/user.json')) return ok(USER);
    if (url.startsWith('/api/common/query/user.json')) return ok({ list: [ROW], total: 1, pageNo: 1, pageSize: 10 });
    return ok({ ...ROW });
  });
  vi.stubGlobal('fetch', fetchMock);
  session.setToken({ access_token: 'tok', refresh_token: 'r', expires_in: 3600 });
  session.setUser({ id: 1, userName: 'admin', permissions: [{ code: 'user', actions: ['add', 'update', 'query'] }], routes: [] });
  render(<SettingsProvider><AppProviders><MemoryRouter><ListPage screen={users} /></MemoryRouter></AppProviders></SettingsProvider>);
});

afterEach(() => {
  session.clear();
  vi.unstubAllGlobals();
});

/** antd's first renders in jsdom are slow on a busy machine. */
const SLOW = 30_000;

describe('the user form (console-spec §5)', () => {
  test('the validators refuse with the spec\'s exact messages before anything is sent', async () => {
    await screen.findByTestId('list-total', {}, { timeout: 10_000 });
    expect(fetchMock.mock.calls.some(([url]) => url.startsWith('/api/common/query/user.json') && url.includes('isParent=true'))).toBe(true);
    fireEvent.click(screen.getByTestId('list-create'));
    fireEvent.change(await screen.findByTestId('record-field-userName'), { target: { value: '1bad' } });
    fireEvent.change(screen.getByTestId('record-field-password'), { target: { value: '123456' } });
    fireEvent.click(screen.getByTestId('record-save'));
    expect(await screen.findByText('用户名不合法（字母开头，允许4-16个字符串，允许字母数字下划线）')).toBeTruthy();
    expect(screen.getByText('密码不合法（长度6~16位，数字、字母、符号至少包含其中两种）')).toBeTruthy();
    expect(writes()).toEqual([]);

    fireEvent.change(screen.getByTestId('record-field-userName'), { target: { value: 'op_two' } });
    fireEvent.change(screen.getByTestId('record-field-password'), { target: { value: 'Passw0rd_x' } });
    fireEvent.click(screen.getByTestId('record-save'));
    await waitFor(() => expect(writes().length).toBe(1));
    const [url, init] = writes()[0];
    expect(url).toBe('/api/common/user.json');
    expect(JSON.parse(String(init?.body))).toEqual({ userName: 'op_two', password: 'Passw0rd_x', enterpriseId: 5 });
  }, SLOW);

  test('on edit the password may stay empty and is then not sent', async () => {
    fireEvent.click(await screen.findByTestId('row-edit-7', {}, { timeout: 10_000 }));
    fireEvent.change(await screen.findByTestId('record-field-name'), { target: { value: '李四' } });
    fireEvent.click(screen.getByTestId('record-save'));
    await waitFor(() => expect(writes().length).toBe(1));
    const [url, init] = writes()[0];
    expect(url).toBe('/api/common/user/7.json');
    expect(JSON.parse(String(init?.body))).toEqual({ userName: 'op_one', name: '李四' });
  }, SLOW);
});
