import { GlobalOutlined } from '@ant-design/icons';
import { Dropdown } from 'antd';
import { useTranslation } from 'react-i18next';
import { changeLanguage } from '../i18n';
import { LANGUAGES } from '../i18n/resources';

/** zh-CN (default), zh-HK, en-US; the choice is kept in localStorage. */
export default function LanguageSwitch({ className }: { className?: string }) {
  const { t, i18n } = useTranslation('common');
  const items = LANGUAGES.map((lng) => ({
    key: lng,
    label: <span data-testid={`lang-${lng}`}>{t(`language.${lng}`)}</span>,
  }));
  return (
    <Dropdown
      menu={{ items, selectable: true, selectedKeys: [i18n.language], onClick: ({ key }) => void changeLanguage(key as (typeof LANGUAGES)[number]) }}
      placement="bottomRight"
    >
      <span className={`header-action ${className ?? ''}`} data-testid="lang-switch" title={t('language.switch')}>
        <GlobalOutlined />
      </span>
    </Dropdown>
  );
}
