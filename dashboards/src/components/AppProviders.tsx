import { App as AntApp, ConfigProvider, theme as antTheme } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import zhHK from 'antd/locale/zh_HK';
import dayjs from 'dayjs';
import 'dayjs/locale/en';
import 'dayjs/locale/zh-cn';
import 'dayjs/locale/zh-hk';
import { useEffect, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { isLanguage, DEFAULT_LANGUAGE, type Language } from '../i18n/resources';
import { HEADER_HEIGHT } from '../layouts/dimensions';
import { STATUS_COLORS } from '../layouts/settings/model';
import { useLayoutSettings } from '../layouts/settings/SettingsContext';
import { MAX_TOASTS } from './notices/noticeCentre';
import { usePrefersReducedMotion } from './reducedMotion';

const ANTD_LOCALES = { 'zh-CN': zhCN, 'zh-HK': zhHK, 'en-US': enUS } as const;
const DAYJS_LOCALES: Record<Language, string> = { 'zh-CN': 'zh-cn', 'zh-HK': 'zh-hk', 'en-US': 'en' };

// A table narrower than its columns (a phone: console-spec's 390 px) scrolls sideways inside its card, its cells as
// wide as their content, instead of squeezing a column to a character a line; a long text column gives itself a width
// to wrap at. A table that sets its own scroll keeps it.
const TABLE = { scroll: { x: 'max-content' as const } };

/**
 * antd and dayjs follow the i18next language; the theme follows the layout settings, with platform-spec §9's status
 * colours; antd's motion (dialogs zooming, menus sliding) is off for a user who asked the system for less motion, as
 * the page transition is (layouts/layouts.css); every table scrolls sideways when its columns do not fit (TABLE).
 */
export default function AppProviders({ children }: { children: ReactNode }) {
  const { i18n } = useTranslation();
  const { settings } = useLayoutSettings();
  const language: Language = isLanguage(i18n.language) ? i18n.language : DEFAULT_LANGUAGE;
  const reducedMotion = usePrefersReducedMotion();

  useEffect(() => {
    dayjs.locale(DAYJS_LOCALES[language]);
    document.documentElement.lang = language;
  }, [language]);

  useEffect(() => {
    document.body.classList.toggle('color-weak', settings.colorWeak);
  }, [settings.colorWeak]);

  return (
    <ConfigProvider
      locale={ANTD_LOCALES[language]}
      table={TABLE}
      theme={{
        algorithm: settings.navTheme === 'night' ? antTheme.darkAlgorithm : antTheme.defaultAlgorithm,
        token: {
          colorPrimary: settings.primaryColor,
          colorSuccess: STATUS_COLORS.success,
          colorWarning: STATUS_COLORS.warning,
          colorError: STATUS_COLORS.error,
          motion: !reducedMotion,
        },
      }}
    >
      {/* At most MAX_TOASTS notifications on screen; the rest are in the centre under the bell. They open
          below the header, so a toast never hides the language switch, the bell or the account menu. */}
      <AntApp notification={{ maxCount: MAX_TOASTS, top: HEADER_HEIGHT + 8 }}>{children}</AntApp>
    </ConfigProvider>
  );
}
