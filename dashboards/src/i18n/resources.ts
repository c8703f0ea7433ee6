// Every src/locales/<lng>/<ns>.json is picked up here: adding a namespace file is enough.
//
// Only the default language is in the first JavaScript the browser loads; another language's files
// are fetched when it is chosen (or stored from an earlier visit): each language is a third of the
// strings, and the strings grow with every screen (docs/performance.md, the 500 KB budget).
export const LANGUAGES = ['zh-CN', 'zh-HK', 'en-US'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'zh-CN';

type Messages = Record<string, unknown>;
export type Resources = Record<string, Record<string, Messages>>;

const FILE = /\/locales\/([^/]+)\/([^/]+)\.json$/;

// The pattern names zh-CN literally (import.meta.glob takes literals only): DEFAULT_LANGUAGE's files.
const defaultFiles = import.meta.glob<Messages>('../locales/zh-CN/*.json', { eager: true, import: 'default' });
const loaders = import.meta.glob<Messages>('../locales/*/*.json', { import: 'default' });

export function buildResources(modules: Record<string, Messages>): Resources {
  const resources: Resources = {};
  for (const [path, messages] of Object.entries(modules)) {
    const match = FILE.exec(path);
    if (!match) continue;
    const [, lng, ns] = match;
    resources[lng] ??= {};
    resources[lng][ns] = messages;
  }
  return resources;
}

/** The default language's messages, bundled. */
export const resources = buildResources(defaultFiles);
export const namespaces = Array.from(
  new Set(Object.keys(loaders).flatMap((path) => (FILE.exec(path) ? [FILE.exec(path)![2]] : []))),
).sort();

/** One namespace of a language, fetched (its own small chunk); rejects for a file that does not exist. */
export function loadMessages(lng: string, ns: string): Promise<Messages> {
  const load = loaders[`../locales/${lng}/${ns}.json`];
  return load ? load() : Promise.reject(new Error(`no messages for ${lng}/${ns}`));
}

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}
