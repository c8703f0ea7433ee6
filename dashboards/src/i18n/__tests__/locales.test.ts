// @vitest-environment jsdom
import { describe, expect, test } from 'vitest';
import i18n from 'i18next';
import '..';
import { buildResources, DEFAULT_LANGUAGE, LANGUAGES, namespaces, resources as bundled } from '../resources';

// Every language's files, read here at once (the console bundles the default and fetches the others).
const resources = buildResources(import.meta.glob('../../locales/*/*.json', { eager: true, import: 'default' }));

/** Dotted key paths of every string leaf. */
function leaves(messages: unknown, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  if (typeof messages === 'string') {
    out.set(prefix, messages);
    return out;
  }
  if (messages && typeof messages === 'object') {
    for (const [key, value] of Object.entries(messages)) {
      for (const [k, v] of leaves(value, prefix ? `${prefix}.${key}` : key)) out.set(k, v);
    }
  }
  return out;
}

/** Keys written twice at the same place of a formatted JSON file (JSON.parse keeps the last silently). */
function duplicateKeys(text: string): string[] {
  const seen = new Set<string>();
  const dupes: string[] = [];
  const path: { indent: number; key: string }[] = [];
  for (const line of text.split('\n')) {
    const match = /^(\s*)"((?:[^"\\]|\\.)*)"\s*:/.exec(line);
    if (!match) continue;
    const indent = match[1].length;
    while (path.length && path[path.length - 1].indent >= indent) path.pop();
    const full = [...path.map((p) => p.key), match[2]].join('\u0000');
    if (seen.has(full)) dupes.push(match[2]);
    seen.add(full);
    if (line.trimEnd().endsWith('{')) path.push({ indent, key: match[2] });
  }
  return dupes;
}

const rawFiles = import.meta.glob('../../locales/*/*.json', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

const placeholders = (text: string) => [...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort();

describe('locales', () => {
  test('exactly zh-CN, zh-HK and en-US are present, zh-CN is the default', () => {
    expect(Object.keys(resources).sort()).toEqual([...LANGUAGES].sort());
    expect(DEFAULT_LANGUAGE).toBe('zh-CN');
  });

  test('only the default language is bundled; another is fetched when chosen', async () => {
    expect(Object.keys(bundled)).toEqual([DEFAULT_LANGUAGE]);
    expect(Object.keys(bundled[DEFAULT_LANGUAGE]).sort()).toEqual(namespaces);
    await i18n.changeLanguage('en-US');
    expect(i18n.t('common:cancel')).toBe((resources['en-US'].common as Record<string, string>).cancel);
    await i18n.changeLanguage('zh-HK');
    expect(i18n.hasResourceBundle('zh-HK', 'menu')).toBe(true);
    await i18n.changeLanguage(DEFAULT_LANGUAGE);
  });

  test('the console namespaces exist', () => {
    expect(namespaces).toEqual(expect.arrayContaining(['common', 'menu', 'auth', 'layout', 'account', 'exception', 'validation']));
  });

  test('no file writes a key twice', () => {
    expect(Object.keys(rawFiles).length).toBeGreaterThan(10);
    for (const [file, text] of Object.entries(rawFiles)) {
      expect(duplicateKeys(text), `${file} writes these keys twice`).toEqual([]);
    }
  });

  test('the duplicate finder sees a repeated key, and the same key under another parent is not one', () => {
    expect(duplicateKeys('{\n  "a": "1",\n  "b": {\n    "a": "2"\n  },\n  "a": "3"\n}')).toEqual(['a']);
  });

  describe.each(namespaces)('namespace %s', (ns) => {
    test.each(LANGUAGES)('%s has the file', (lng) => {
      expect(resources[lng][ns], `${lng}/${ns}.json is missing`).toBeDefined();
    });

    test('every key exists in all three languages', () => {
      const keySets = LANGUAGES.map((lng) => [...leaves(resources[lng][ns] ?? {}).keys()].sort());
      const union = [...new Set(keySets.flat())].sort();
      LANGUAGES.forEach((lng, i) => {
        const missing = union.filter((key) => !keySets[i].includes(key));
        expect(missing, `${lng}/${ns}.json lacks keys`).toEqual([]);
      });
    });

    test('no message is empty and placeholders match across languages', () => {
      const base = leaves(resources[DEFAULT_LANGUAGE][ns] ?? {});
      for (const lng of LANGUAGES) {
        for (const [key, text] of leaves(resources[lng][ns] ?? {})) {
          expect(text.trim(), `${lng}/${ns}:${key} is empty`).not.toBe('');
          expect(placeholders(text), `${lng}/${ns}:${key} placeholders`).toEqual(placeholders(base.get(key) ?? ''));
        }
      }
    });
  });
});
