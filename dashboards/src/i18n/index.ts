import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { DEFAULT_LANGUAGE, isLanguage, languageBundles, LANGUAGES, namespaces, resources, type Language } from './resources';

export const LANGUAGE_STORAGE_KEY = 'fleetwatch.language';

export function storedLanguage(): Language {
  const value = localStorage.getItem(LANGUAGE_STORAGE_KEY);
  return isLanguage(value) ? value : DEFAULT_LANGUAGE;
}

void i18n.use(initReactI18next).init({
  resources: { ...resources }, // a copy: i18next adds the fetched languages to the object it is given
  ns: namespaces,
  defaultNS: 'common',
  lng: DEFAULT_LANGUAGE,
  fallbackLng: DEFAULT_LANGUAGE,
  interpolation: { escapeValue: false },
  returnNull: false,
  partialBundledLanguages: true,
});

const loaded = new Set<Language>([DEFAULT_LANGUAGE]);

/** Makes a language's strings available (fetched once; the default language is always there). */
export async function loadLanguage(lng: Language): Promise<void> {
  if (loaded.has(lng)) return;
  const bundles = await languageBundles(lng);
  for (const [ns, messages] of Object.entries(bundles)) i18n.addResourceBundle(lng, ns, messages, true, true);
  loaded.add(lng);
}

/** Every language at once (the unit tests switch languages synchronously). */
export async function loadAllLanguages(): Promise<void> {
  await Promise.all(LANGUAGES.map(loadLanguage));
}

/** Switches to a language once its strings are here (the first time, after fetching them). */
export async function switchLanguage(lng: Language): Promise<void> {
  await loadLanguage(lng);
  await i18n.changeLanguage(lng);
}

export function changeLanguage(lng: Language): void {
  localStorage.setItem(LANGUAGE_STORAGE_KEY, lng);
  document.documentElement.lang = lng;
  void switchLanguage(lng);
}

/** Resolves when the stored language is ready (the console renders after it: no flash of the default). */
export const languageReady: Promise<void> = switchLanguage(storedLanguage()).catch(() => undefined);

export default i18n;
