import { render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, test, vi, type Mock } from 'vitest';
import '../../../i18n';
import { MemoryRouter } from 'react-router';
import { session } from '../../../auth/session';
import AppProviders from '../../../components/AppProviders';
import { SettingsProvider } from '../../../layouts/settings/SettingsContext';
import AuditLogScreen from '../../../screens/settings/auditLog';
import { field } from '../../../test/listFixtures';
import { clearMetaCache } from '../../list/api';
import type { EntityMeta } from '../../list/types';
import { EMPTY, fieldChanges } from '../changes';

const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
const ok = (data: unknown) => json({ code: 0, message: 'ok', data });

/** api/query/entities_audit.py AUDIT_LOG as the meta route answers it. */
const AUDIT: EntityMeta = {
  name: 'auditLog',
  idField: 'id',
  permission: 'auditLog',
  writable: false,
  fields: [
    field('id', { type: 'int', label: '编号' }),
    field('time', { type: 'time', label: '时间', exportable: true }),
    field('userId', { type: 'int', label: '用户编号' }),
    field('userName', { label: '用户', exportable: true }),
    field('enterpriseId', { type: 'int', label: '企业' }),
    field('entity', { label: '对象', exportable: true }),
    field('recordId', { type: 'int', label: '记录编号', exportable: true }),
    field('action', { enum: ['create', 'update', 'delete'], label: '操作', exportable: true }),
    field('changes', { filterable: false, sortable: false, label: '变更内容', exportable: true }),
  ],
};

const ROWS = [
  { id: 2, time: '2026-11-24T10:00:00+00:00', userName: 'admin_a', entity: 'carModel', recordId: 7, action: 'update',
    changes: { name: { before: '解放J6P', after: '解放J7' }, remark: { before: null, after: '牵引车' } } },
  { id: 1, time: '2026-11-24T09:00:00+00:00', userName: 'admin_a', entity: 'carModel', recordId: 7, action: 'create',
    changes: { name: { before: null, after: '解放J6P' }, code: { before: null, after: 'J6P' } } },
];

let fetchMock: Mock<(url: string, init?: RequestInit) => Promise<Response>>;

beforeEach(() => {
  clearMetaCache();
  fetchMock = vi.fn(async (url: string) => {
    if (url.startsWith('/api/common/meta/auditLog.json')) return ok(AUDIT);
    if (url.startsWith('/api/common/query/auditLog.json')) return ok({ list: ROWS, total: 2, pageNo: 1, pageSize: 10 });
    return ok(null);
  });
  vi.stubGlobal('fetch', fetchMock);
  session.setToken({ access_token: 'tok', refresh_token: 'r', expires_in: 3600 });
  session.setUser({ id: 1, userName: 'ops', permissions: [{ code: 'auditLog', actions: ['query', 'get', 'export'] }], routes: [] });
});

afterEach(() => {
  session.clear();
  vi.unstubAllGlobals();
});

describe('fieldChanges', () => {
  test('one line per field with before and after, null as a dash, objects as JSON', () => {
    expect(fieldChanges({ name: { before: 'a', after: 'b' }, remark: { before: null, after: '' }, roles: { before: null, after: [1, 2] } }))
      .toEqual([
        { field: 'name', before: 'a', after: 'b' },
        { field: 'remark', before: EMPTY, after: '""' },
        { field: 'roles', before: EMPTY, after: '[1,2]' },
      ]);
  });

  test('anything that is not a change object is shown, never thrown on', () => {
    expect(fieldChanges(null)).toEqual([]);
    expect(fieldChanges('x')).toEqual([]);
    expect(fieldChanges({ odd: 5 })).toEqual([{ field: 'odd', before: EMPTY, after: '5' }]);
  });
});

describe('the audit log screen', () => {
  test('rows newest first with translated entity and action and each field before → after; read only', async () => {
    render(
      <SettingsProvider>
        <AppProviders>
          <MemoryRouter>
            <AuditLogScreen />
          </MemoryRouter>
        </AppProviders>
      </SettingsProvider>,
    );
    expect((await screen.findByTestId('list-total', {}, { timeout: 10_000 })).textContent).toBe('共 2 条数据');
    const table = screen.getByTestId('list-table');
    expect(within(table).getAllByText('车辆型号').length).toBe(2);
    expect(within(table).getByText('修改')).toBeTruthy();
    expect(within(table).getByText('新增')).toBeTruthy();
    const [updated] = within(table).getAllByTestId('audit-change-name');
    expect(updated.textContent).toBe('name: 解放J6P → 解放J7');
    expect(within(table).getByTestId('audit-change-remark').textContent).toBe(`remark: ${EMPTY} → 牵引车`);
    const filters = await screen.findByTestId('list-filters');
    for (const name of ['entity', 'recordId', 'userName', 'action', 'time']) expect(within(filters).getAllByTestId(`list-filter-${name}`).length).toBeGreaterThan(0);
    expect(screen.queryByTestId('list-create')).toBeNull();
    expect(screen.queryByTestId('list-import')).toBeNull();
    expect(screen.getByTestId('list-export-xlsx')).toBeTruthy();
    const [query] = fetchMock.mock.calls.filter(([url]) => url.startsWith('/api/common/query/auditLog.json'));
    expect(query[0]).toContain('countable=true');
  });
});
