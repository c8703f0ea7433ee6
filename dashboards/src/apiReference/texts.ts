import enUS from '../locales/en-US/layout.json';
import zhCN from '../locales/zh-CN/layout.json';
import zhHK from '../locales/zh-HK/layout.json';

const BY_LANGUAGE = { 'zh-CN': zhCN, 'zh-HK': zhHK, 'en-US': enUS } as const;
type Language = keyof typeof BY_LANGUAGE;

/** The API reference page's own texts in the console's language (the stored choice, else zh-CN). */
export function pageTexts(stored: string | null): { lang: Language; title: string; back: string } {
  const lang: Language = stored && stored in BY_LANGUAGE ? (stored as Language) : 'zh-CN';
  const { footer } = BY_LANGUAGE[lang];
  return { lang, title: footer.apiManual, back: footer.backToConsole };
}
