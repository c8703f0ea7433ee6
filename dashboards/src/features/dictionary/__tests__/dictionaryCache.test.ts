// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, test, vi, type Mock } from 'vitest';
import { configureClientEffects } from '../../../api/effects';
import { LANGUAGE_HEADER } from '../../../api/language';
import { cachedDictionary, clearDictionaries, loadDictionary, loadStartupDictionaries, STARTUP_CODES } from '../dictionaryCache';

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

let fetchMock: Mock<(url: string, init?: RequestInit) => Promise<Response>>;
let entries: Record<string, unknown[]>;

beforeEach(() => {
  clearDictionaries();
  entries = {
    car_alarm_desc: [{ content: '[{"bit":0,"name":"紧急报警"}]' }],
    ol_map_config: [{ content: '{"defaultZoom":9}' }, { content: '{"defaultZoom":11}' }],
    device_message_desc: [],
    exchange_message_desc: [{ content: '{broken' }],
  };
  fetchMock = vi.fn(async (_url: string, init?: RequestInit) => {
    const body = JSON.parse(String(init?.body)) as Record<string, string>;
    return json({ code: 0, message: 'ok', data: entries[body['code.eq']] ?? [] });
  });
  vi.stubGlobal('fetch', fetchMock);
});

afterEach(() => vi.unstubAllGlobals());

describe('start-up dictionaries', () => {
  test('loads the four codes of the system dictionary through the dictionary endpoint', async () => {
    await loadStartupDictionaries();
    const bodies = fetchMock.mock.calls.map(([url, init]) => [url, JSON.parse(String(init?.body))]);
    expect(bodies).toEqual(STARTUP_CODES.map((code) => ['/api/system/dictionary/dictionary.json', { 'type.eq': 98, 'code.eq': code }]));
  });

  test('keeps the first entry (the enterprise own one) parsed, null when absent or not JSON', async () => {
    await loadStartupDictionaries();
    expect(cachedDictionary('car_alarm_desc')).toEqual([{ bit: 0, name: '紧急报警' }]);
    expect(cachedDictionary('ol_map_config')).toEqual({ defaultZoom: 9 });
    expect(cachedDictionary('device_message_desc')).toBeNull();
    expect(cachedDictionary('exchange_message_desc')).toBeNull();
  });

  test('fetches each code once, concurrent callers share the request', async () => {
    const [a, b] = await Promise.all([loadDictionary('ol_map_config'), loadDictionary('ol_map_config')]);
    await loadDictionary('ol_map_config');
    expect(a).toEqual(b);
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  test('a failed call is null and quiet, and clearing forgets the cache', async () => {
    fetchMock.mockResolvedValueOnce(json({ code: 500, message: 'boom', data: null }, 500));
    expect(await loadDictionary('car_alarm_desc')).toBeNull();
    clearDictionaries();
    expect(cachedDictionary('car_alarm_desc')).toBeUndefined();
    expect(await loadDictionary('car_alarm_desc')).toEqual([{ bit: 0, name: '紧急报警' }]);
  });
});

describe('the language of the cached names', () => {
  test('a language switch reads the code again in the new language, each language kept apart', async () => {
    let language = 'zh-CN';
    const restore = configureClientEffects({ language: () => language });
    try {
      fetchMock.mockImplementation(async (_url: string, init?: RequestInit) => {
        const asked = new Headers(init?.headers).get(LANGUAGE_HEADER);
        const name = asked === 'en-US' ? 'Emergency alarm' : '紧急报警';
        return json({ code: 0, message: 'ok', data: [{ content: JSON.stringify([{ bit: 0, name }]) }] });
      });
      expect(await loadDictionary('car_alarm_desc')).toEqual([{ bit: 0, name: '紧急报警' }]);
      language = 'en-US';
      expect(cachedDictionary('car_alarm_desc')).toBeUndefined();
      expect(await loadDictionary('car_alarm_desc')).toEqual([{ bit: 0, name: 'Emergency alarm' }]);
      language = 'zh-CN';
      expect(cachedDictionary('car_alarm_desc')).toEqual([{ bit: 0, name: '紧急报警' }]);
      expect(fetchMock).toHaveBeenCalledTimes(2);
    } finally {
      restore();
    }
  });

  test('an answer that arrives after a sign-out cleared the cache is not kept', async () => {
    const loading = loadDictionary('car_alarm_desc');
    clearDictionaries();
    await loading;
    expect(cachedDictionary('car_alarm_desc')).toBeUndefined();
  });
});
