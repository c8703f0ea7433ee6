// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import '../../../i18n';
import { configureClientEffects } from '../../../api/effects';
import { session } from '../../../auth/session';
import { IDLE, importPercent, importReducer, type ImportEvent } from '../../list/importJob';
import { bindingImportEvents, bindingImporter, bindingTemplate, templateHeader } from '../bindingImport';

const reply = (data: unknown, status = 200, code = 0, message = 'ok') =>
  new Response(JSON.stringify({ code, message, data }), { status, headers: { 'Content-Type': 'application/json' } });

let notices: string[];
let restore: () => void;
beforeEach(() => {
  notices = [];
  restore = configureClientEffects({ notifyError: (_title, message) => notices.push(message) });
  session.setToken({ access_token: 'tok', refresh_token: 'r', expires_in: 3600 });
});
afterEach(() => {
  restore();
  session.clear();
  vi.unstubAllGlobals();
});

describe('the binding import template', () => {
  it('has the headers the route reads: the Chinese pair, or the field names for English', () => {
    expect(templateHeader('zh-CN')).toEqual(['围栏名称', '车牌号']);
    expect(templateHeader('zh-HK')).toEqual(['围栏名称', '车牌号']); // the server reads the mainland header only
    expect(templateHeader('en-US')).toEqual(['fenceName', 'plateNumber']);
  });

  it('is an XLSX workbook naming the fence it was opened on', async () => {
    const { blob, fileName } = bindingTemplate('zh-CN', '东门停车场');
    expect(fileName).toBe('fenceBinding-template.xlsx');
    const text = new TextDecoder().decode(new Uint8Array(await blob.arrayBuffer()));
    expect(text.startsWith('PK')).toBe(true); // a zip, stored (the sheet's XML is readable in it)
    expect(text).toContain('围栏名称');
    expect(text).toContain('东门停车场');
  });
});

describe('bindingImportEvents', () => {
  it('ends the import at once: every row processed, the new bindings created, the refused rows with their reason', () => {
    const errors = [{ row: 3, message: "车辆不存在或不属于围栏的企业 (no car '京Z0' of the fence's enterprise)" }];
    const job = bindingImportEvents({ code: 0, message: 'ok', data: { total: 2, bound: 1, errors } })
      .reduce(importReducer, importReducer(IDLE, { type: 'upload' }));
    expect(job).toMatchObject({ phase: 'done', total: 2, processed: 2, created: 1, failed: 1, errors });
    expect(importPercent(job)).toBe(100);
  });

  it('fails the import with the server message for a refused file', () => {
    const events = bindingImportEvents({ code: 400, message: '表头缺少列 围栏名称', data: null });
    expect(events.reduce(importReducer, IDLE)).toEqual({ phase: 'failed', message: '表头缺少列 围栏名称', errors: [] });
  });
});

describe('bindingImporter', () => {
  const file = new File(['围栏名称,车牌号\nA,京Z1\n'], 'bindings.csv', { type: 'text/csv' });

  it('posts the file as multipart "file" to the binding import route', async () => {
    const fetchMock = vi.fn().mockResolvedValue(reply({ total: 1, bound: 1, errors: [] }));
    vi.stubGlobal('fetch', fetchMock);
    const events: ImportEvent[] = [];
    await bindingImporter('zh-CN').run(file, (e) => events.push(e), { signal: new AbortController().signal });
    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(url).toBe('/api/fence/binding/import.json');
    expect(init.method).toBe('POST');
    expect((init.body as FormData).get('file')).toBeInstanceOf(File);
    expect(events.reduce(importReducer, IDLE)).toMatchObject({ phase: 'done', created: 1, failed: 0 });
  });

  it('a refused upload ends as failed with the server message (also the error notice)', async () => {
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(reply(null, 400, 400, '表头缺少列 围栏名称')));
    const events: ImportEvent[] = [];
    await bindingImporter('zh-CN').run(file, (e) => events.push(e), { signal: new AbortController().signal });
    expect(events.reduce(importReducer, IDLE)).toEqual({ phase: 'failed', message: '表头缺少列 围栏名称', errors: [] });
    expect(notices).toEqual(['表头缺少列 围栏名称']);
  });
});
