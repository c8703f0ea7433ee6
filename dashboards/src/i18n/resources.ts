// Every src/locales/<lng>/<ns>.json is picked up here: adding a namespace file is enough. The default
// language is in the initial bundle; the others are fetched when chosen (loadLanguage), which keeps two
// thirds of the strings out of the console's initial JavaScript (budget: dashboards/scripts/bundle-size.mjs).
export const LANGUAGES = ['zh-CN', 'zh-HK', 'en-US'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'zh-CN';

type Messages = Record<string, unknown>;
export type Resources = Record<string, Record<string, Messages>>;

const defaultFiles = import.meta.glob<Messages>('../locales/zh-CN/*.json', { eager: true, import: 'default' });
const lazyFiles = import.meta.glob<Messages>(['../locales/*/*.json', '!../locales/zh-CN/*.json'], { import: 'default' });

const FILE = /\/locales\/([^/]+)\/([^/]+)\.json$/;

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

/** The strings in the initial bundle: the default language's. */
export const resources = buildResources(defaultFiles);
export const namespaces = Object.keys(resources[DEFAULT_LANGUAGE] ?? {}).sort();

/** Every namespace of a language, fetched (the default language's resolve at once). */
export async function languageBundles(lng: Language): Promise<Record<string, Messages>> {
  if (lng === DEFAULT_LANGUAGE) return resources[DEFAULT_LANGUAGE] ?? {};
  const entries = Object.entries(lazyFiles).filter(([path]) => FILE.exec(path)?.[1] === lng);
  const loaded = await Promise.all(entries.map(async ([path, load]) => [FILE.exec(path)?.[2] ?? '', await load()] as const));
  return Object.fromEntries(loaded);
}

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}
