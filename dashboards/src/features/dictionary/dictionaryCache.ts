/**
 * The dictionaries the console reads at start-up (platform-spec §7 "Also loaded at startup": alarm
 * descriptions, map config, device and exchange message descriptions), through
 * `POST /api/system/dictionary/dictionary.json` (the caller's enterprise entry first, then the system
 * one; the first result's content is read). One cache for the session: each code is fetched once,
 * parsed JSON is kept; a failed or empty answer is `null` (platform-spec §8: a dictionary get falls
 * back to an empty string, and a custom dictionary to null).
 * The server gives the names inside a content list in the caller's language (X-Fleet-Language), so a
 * value is kept per language: after a language switch the next read fetches the code again in it.
 */
import { useEffect, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { http } from '../../api/client';
import { clientEffects } from '../../api/effects';

export const SYSTEM_DICTIONARY_TYPE = 98;
export const STARTUP_CODES = ['car_alarm_desc', 'ol_map_config', 'device_message_desc', 'exchange_message_desc'] as const;
export type StartupCode = (typeof STARTUP_CODES)[number];

interface DictionaryEntry {
  content?: string | null;
}

/** The first entry's content for type and code, '' when there is none or the call failed. */
export async function fetchDictionaryContent(type: number, code: string, signal?: AbortSignal): Promise<string> {
  const reply = await http.post<DictionaryEntry[] | null>('/api/system/dictionary/dictionary.json', {
    body: { 'type.eq': type, 'code.eq': code },
    signal,
    quiet: true,
  });
  if (reply.code !== 0 || !Array.isArray(reply.data) || reply.data.length === 0) return '';
  return reply.data[0].content ?? '';
}

function parsed(content: string): unknown {
  if (!content) return null;
  try {
    return JSON.parse(content) as unknown;
  } catch {
    return null;
  }
}

const values = new Map<string, unknown>();
const pending = new Map<string, Promise<unknown>>();
const listeners = new Set<() => void>();
let version = 0;

function changed() {
  version += 1;
  listeners.forEach((listener) => listener());
}

/** The cache key of a code in the console's current language. */
function keyOf(code: string): string {
  return `${clientEffects().language()}\u0000${code}`;
}

/** The parsed content of a system dictionary code in the console's language: cached, fetched once per
 * language (concurrent callers share). */
export function loadDictionary(code: string): Promise<unknown> {
  const key = keyOf(code);
  if (values.has(key)) return Promise.resolve(values.get(key));
  let loading = pending.get(key);
  if (!loading) {
    loading = fetchDictionaryContent(SYSTEM_DICTIONARY_TYPE, code).then((content) => {
      const value = parsed(content);
      // a sign-out while this was on its way cleared the cache: the answer is not kept for the next user
      if (pending.get(key) === loading) {
        values.set(key, value);
        pending.delete(key);
        changed();
      }
      return value;
    });
    pending.set(key, loading);
  }
  return loading;
}

/** After sign-in: the four start-up dictionaries, in parallel. */
export function loadStartupDictionaries(): Promise<unknown[]> {
  return Promise.all(STARTUP_CODES.map((code) => loadDictionary(code)));
}

/** The cached value in the console's language (undefined while not loaded, null when absent or unreadable). */
export function cachedDictionary(code: string): unknown {
  return values.get(keyOf(code));
}

/** Forget everything (sign-out: another user may belong to another enterprise). */
export function clearDictionaries(): void {
  values.clear();
  pending.clear();
  changed();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The cached value of ``code`` in the console's language for a component, re-rendered when the cache
 * changes; after a language switch it is loaded again in the new one (undefined until it is in). */
export function useDictionary(code: string): unknown {
  useSyncExternalStore(subscribe, () => version, () => version);
  const { i18n } = useTranslation(); // re-renders on a language switch
  const key = keyOf(code);
  useEffect(() => {
    if (!values.has(key)) void loadDictionary(code);
  }, [key, code, i18n.language]);
  return values.get(key);
}
