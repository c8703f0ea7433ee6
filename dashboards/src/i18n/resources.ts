// Every src/locales/<lng>/<ns>.json is picked up here: adding a namespace file is enough.
export const LANGUAGES = ['zh-CN', 'zh-HK', 'en-US'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'zh-CN';

type Messages = Record<string, unknown>;
export type Resources = Record<string, Record<string, Messages>>;

const files = import.meta.glob<Messages>('../locales/*/*.json', { eager: true, import: 'default' });

export function buildResources(modules: Record<string, Messages>): Resources {
  const resources: Resources = {};
  for (const [path, messages] of Object.entries(modules)) {
    const match = /\/locales\/([^/]+)\/([^/]+)\.json$/.exec(path);
    if (!match) continue;
    const [, lng, ns] = match;
    resources[lng] ??= {};
    resources[lng][ns] = messages;
  }
  return resources;
}

export const resources = buildResources(files);
export const namespaces = Array.from(new Set(Object.values(resources).flatMap((byNs) => Object.keys(byNs)))).sort();

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}
