// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import '../../../i18n';
import { configureClientEffects } from '../../../api/effects';
import { CATALOGUE, field } from '../../../test/listFixtures';
import { clearMetaCache, deleteAll, labelField, refOptions } from '../api';
import type { EntityMeta } from '../types';

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
const ok = (data: unknown) => json({ code: 0, message: 'ok', data });

const CAR: EntityMeta = {
  name: 'car', idField: 'id', permission: 'car',
  fields: [field('id', { type: 'int' }), field('groupId', { type: 'int' }), field('plateNumber'), field('vin')],
};

let notices: string[];
let restore: () => void;
beforeEach(() => {
  clearMetaCache();
  notices = [];
  restore = configureClientEffects({ notifyError: (_t, message) => notices.push(message) });
});
afterEach(() => {
  restore();
  vi.unstubAllGlobals();
});

describe('reference options', () => {
  test("a record is named by 'name', else the first listable text field", () => {
    expect(labelField(CATALOGUE)).toBe('name');
    expect(labelField(CAR)).toBe('plateNumber');
  });

  test('the referenced entity is queried for its id and name, sorted by name', async () => {
    const fetchMock = vi.fn(async (url: string) =>
      url.startsWith('/api/common/meta/car.json') ? ok(CAR) : ok({ list: [{ id: 7, plateNumber: '京A1' }], pageNo: 1, pageSize: 1000 }));
    vi.stubGlobal('fetch', fetchMock);
    expect(await refOptions('car')).toEqual([{ value: 7, label: '京A1' }]);
    const [url] = fetchMock.mock.calls[1] as [string];
    expect(decodeURIComponent(url)).toBe('/api/common/query/car.json?select=id,plateNumber&pageNo=1&pageSize=1000&orderBy=plateNumber');
  });

  test('without the right to list it the choice is empty and nothing is shown', async () => {
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(json({ code: 403, message: '没有权限', data: null }, 403)));
    expect(await refOptions('car')).toEqual([]);
    expect(notices).toEqual([]);
  });
});

describe('bulk delete', () => {
  test('deletes one after another and reports each failure with the server reason', async () => {
    const fetchMock = vi.fn(async (url: string, _init?: RequestInit) =>
      url.split('?')[0].endsWith('/12.json') ? json({ code: 404, message: 'carModel 12 不存在 (does not exist)', data: null }, 404) : ok({ id: 1 }));
    vi.stubGlobal('fetch', fetchMock);
    expect(await deleteAll('carModel', [11, 12, 13])).toEqual([{ id: 12, message: 'carModel 12 不存在 (does not exist)' }]);
    expect(fetchMock.mock.calls.map(([url, init]) => `${init?.method} ${url.split('?')[0]}`)).toEqual([
      'DELETE /api/common/carModel/11.json', 'DELETE /api/common/carModel/12.json', 'DELETE /api/common/carModel/13.json',
    ]);
    expect(notices).toEqual([]); // the toolbar reports them together
  });
});
