// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import '../../../i18n';
import { configureClientEffects } from '../../../api/effects';
import { session } from '../../../auth/session';
import type { ImportStatus } from '../api';
import { IDLE, importPercent, importReducer, runImport, type ImportEvent, type ImportJob } from '../importJob';

const reply = (data: unknown, status = 200, code = 0, message = 'ok') =>
  new Response(JSON.stringify({ code, message, data }), { status, headers: { 'Content-Type': 'application/json' } });

const status = (over: Partial<ImportStatus>): ImportStatus => ({
  state: 'running', total: 3, processed: 0, created: 0, failed: 0, errors: [], ...over,
});

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

function run(events: ImportEvent[]): ImportJob {
  return events.reduce(importReducer, IDLE);
}

describe('the import state machine', () => {
  test('upload, running with progress, done with the refused rows', () => {
    const started = run([{ type: 'upload' }, { type: 'started', jobId: 'j1', total: 4 }]);
    expect(started).toMatchObject({ phase: 'running', jobId: 'j1', total: 4, processed: 0 });
    expect(importPercent(started)).toBe(0);
    const half = importReducer(started, { type: 'status', status: status({ total: 4, processed: 2, created: 2 }) });
    expect(importPercent(half)).toBe(50);
    const errors = [{ row: 3, field: 'code', message: '字段格式不正确' }];
    const done = importReducer(half, { type: 'status', status: status({ state: 'done', total: 4, processed: 4, created: 3, failed: 1, errors }) });
    expect(done).toMatchObject({ phase: 'done', created: 3, failed: 1, errors });
    expect(importPercent(done)).toBe(100);
  });

  test('a failed job or request ends it with the message; reset goes back to idle', () => {
    const running = run([{ type: 'started', jobId: 'j1', total: 2 }]);
    expect(importReducer(running, { type: 'status', status: status({ state: 'failed', message: '文件无法读取' }) }))
      .toEqual({ phase: 'failed', message: '文件无法读取', errors: [] });
    // a job that stopped: its reason in the console's language (localMessage) when the server sent one
    expect(importReducer(running, { type: 'status', status: status({ state: 'failed', message: '导入失败', localMessage: 'import stopped' }) }))
      .toEqual({ phase: 'failed', message: 'import stopped', errors: [] });
    expect(importReducer({ phase: 'uploading' }, { type: 'error', message: 'too large' })).toEqual({ phase: 'failed', message: 'too large', errors: [] });
    expect(importReducer(running, { type: 'reset' })).toBe(IDLE);
  });

  test('a late status after the job ended changes nothing', () => {
    const failed: ImportJob = { phase: 'failed', message: 'x', errors: [] };
    expect(importReducer(failed, { type: 'status', status: status({ processed: 1 }) })).toBe(failed);
    expect(importPercent(run([{ type: 'started', jobId: 'j', total: 0 }]))).toBe(0);
  });
});

describe('runImport', () => {
  const file = new File(['name,code\nA,B\n'], 'models.csv', { type: 'text/csv' });

  test('uploads the file as multipart "file", then polls until done', async () => {
    const fetchMock = vi.fn()
      .mockResolvedValueOnce(reply({ jobId: 'j7', total: 3 }))
      .mockResolvedValueOnce(reply(status({ processed: 1, created: 1 })))
      .mockResolvedValueOnce(reply(status({ state: 'done', processed: 3, created: 2, failed: 1, errors: [{ row: 2, field: 'code', message: 'dup' }] })));
    vi.stubGlobal('fetch', fetchMock);
    const events: ImportEvent[] = [];
    const sleep = vi.fn().mockResolvedValue(undefined);
    await runImport('carModel', file, (e) => events.push(e), { signal: new AbortController().signal, sleep });

    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(url).toBe('/api/common/import/carModel.json');
    expect(init.method).toBe('POST');
    expect((init.body as FormData).get('file')).toBeInstanceOf(File);
    expect((init.headers as Record<string, string>)['Content-Type']).toBeUndefined(); // the browser sets the boundary
    expect((init.headers as Record<string, string>).Authorization).toBe('Bearer tok');
    expect(fetchMock.mock.calls.slice(1).map((c) => c[0])).toEqual(['/api/common/import/carModel/j7.json', '/api/common/import/carModel/j7.json']);
    expect(sleep).toHaveBeenCalledTimes(1);
    expect(sleep).toHaveBeenCalledWith(1000);
    const job = events.reduce(importReducer, IDLE);
    expect(job).toMatchObject({ phase: 'done', created: 2, failed: 1 });
  });

  test('a refused upload ends as failed with the server message (also shown as the error notice)', async () => {
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(reply(null, 400, 400, '文件格式不支持 (unsupported file)')));
    const events: ImportEvent[] = [];
    await runImport('carModel', file, (e) => events.push(e), { signal: new AbortController().signal });
    expect(events.reduce(importReducer, IDLE)).toEqual({ phase: 'failed', message: '文件格式不支持 (unsupported file)', errors: [] });
    expect(notices).toEqual(['文件格式不支持 (unsupported file)']);
  });

  test('closing the dialog (abort) stops the polling', async () => {
    const controller = new AbortController();
    const fetchMock = vi.fn()
      .mockResolvedValueOnce(reply({ jobId: 'j8', total: 100 }))
      .mockResolvedValue(reply(status({ total: 100, processed: 10 })));
    vi.stubGlobal('fetch', fetchMock);
    const sleep = vi.fn(async () => controller.abort());
    await runImport('carModel', file, () => undefined, { signal: controller.signal, sleep });
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });
});
