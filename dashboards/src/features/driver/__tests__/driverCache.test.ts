import { beforeEach, describe, expect, test, vi } from 'vitest';
import { clearDriverCache, loadDriver, rememberDriver, type CachedDriver } from '../driverCache';
import type { ApiReply } from '../../../api/types';

const reply = (data: CachedDriver | null, code = 0): ApiReply<CachedDriver | null> => ({ code, message: code ? '记录不存在' : 'ok', data });

describe('the driver cache of platform-spec §3', () => {
  beforeEach(() => clearDriverCache());

  test('a driver fetched from the server is cached: the second read asks nothing', async () => {
    const fetch = vi.fn(async () => reply({ id: 7, name: '张三', phone: '13800000000' }));
    expect(await loadDriver(7, fetch)).toEqual({ id: 7, name: '张三', phone: '13800000000' });
    expect(await loadDriver(7, fetch)).toEqual({ id: 7, name: '张三', phone: '13800000000' });
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  test('empty data caches an object holding only the id, and is not asked again', async () => {
    const fetch = vi.fn(async () => reply(null));
    expect(await loadDriver(9, fetch)).toEqual({ id: 9 });
    expect(await loadDriver(9, fetch)).toEqual({ id: 9 });
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  test('a failed read returns nothing and caches nothing: the next read asks again', async () => {
    const fetch = vi.fn()
      .mockResolvedValueOnce(reply(null, 404))
      .mockRejectedValueOnce(new Error('offline'))
      .mockResolvedValueOnce(reply({ id: 4, name: '李四' }));
    expect(await loadDriver(4, fetch)).toBeNull();
    expect(await loadDriver(4, fetch)).toBeNull();
    expect(await loadDriver(4, fetch)).toEqual({ id: 4, name: '李四' });
    expect(fetch).toHaveBeenCalledTimes(3);
  });

  test('concurrent reads of one id share one request', async () => {
    let answer: (value: ApiReply<CachedDriver | null>) => void = () => undefined;
    const fetch = vi.fn(() => new Promise<ApiReply<CachedDriver | null>>((resolve) => { answer = resolve; }));
    const both = Promise.all([loadDriver(3, fetch), loadDriver(3, fetch)]);
    answer(reply({ id: 3, name: '王五' }));
    expect(await both).toEqual([{ id: 3, name: '王五' }, { id: 3, name: '王五' }]);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  test('a remembered driver needs no request; clearing (another user) forgets every driver', async () => {
    const fetch = vi.fn(async () => reply({ id: 5, name: '新名字' }));
    rememberDriver({ id: 5, name: '赵六' });
    expect(await loadDriver(5, fetch)).toEqual({ id: 5, name: '赵六' });
    expect(fetch).not.toHaveBeenCalled();
    clearDriverCache();
    expect(await loadDriver(5, fetch)).toEqual({ id: 5, name: '新名字' });
  });
});
