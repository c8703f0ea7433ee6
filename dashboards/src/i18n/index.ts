import i18n, { type BackendModule } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { DEFAULT_LANGUAGE, isLanguage, loadMessages, namespaces, resources, type Language } from './resources';

export const LANGUAGE_STORAGE_KEY = 'fleetwatch.language';

export function storedLanguage(): Language {
  const value = localStorage.getItem(LANGUAGE_STORAGE_KEY);
  return isLanguage(value) ? value : DEFAULT_LANGUAGE;
}

/** i18next reads the languages not bundled (resources.ts) from their own chunks. */
const lazyLocales: BackendModule = {
  type: 'backend',
  init: () => undefined,
  read: (lng, ns, callback) => {
    loadMessages(lng, ns).then((messages) => callback(null, messages), (error: Error) => callback(error, false));
  },
};

/** Resolves when the stored language's strings are in (at once for the bundled default). */
export const i18nReady = i18n.use(lazyLocales).use(initReactI18next).init({
  resources,
  partialBundledLanguages: true,
  ns: namespaces,
  defaultNS: 'common',
  lng: storedLanguage(),
  fallbackLng: DEFAULT_LANGUAGE,
  interpolation: { escapeValue: false },
  returnNull: false,
  react: { useSuspense: false },
});

/** Switches once the language's strings are loaded (i18next fetches them first). The page's `lang`
 * follows in AppProviders after the render in the new language, so it never announces a language whose
 * strings are not on screen yet. */
export function changeLanguage(lng: Language): Promise<unknown> {
  localStorage.setItem(LANGUAGE_STORAGE_KEY, lng);
  return i18n.changeLanguage(lng);
}

export default i18n;
