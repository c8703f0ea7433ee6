import { CopyrightOutlined } from '@ant-design/icons';
import { Layout } from 'antd';
import { useTranslation } from 'react-i18next';
import { COPYRIGHT_START_YEAR, FOOTER_LINKS } from '../config';

const LINKS: { key: keyof typeof FOOTER_LINKS; label: string }[] = [
  { key: 'home', label: 'footer.home' },
  { key: 'source', label: 'footer.source' },
  { key: 'apiManual', label: 'footer.apiManual' },
  { key: 'userManual', label: 'footer.userManual' },
];

export default function GlobalFooter() {
  const { t, i18n } = useTranslation('layout');
  const year = new Date().getFullYear();
  return (
    <Layout.Footer className="global-footer" data-testid="global-footer">
      <div className="global-footer-links">
        {LINKS.map(({ key, label }) => (
          <a key={key} href={FOOTER_LINKS[key].replace('{lng}', i18n.language)} data-testid={`footer-${key}`} target={key === 'home' ? undefined : '_blank'} rel="noreferrer">
            {t(label)}
          </a>
        ))}
      </div>
      <div className="global-footer-copyright">
        <CopyrightOutlined /> {t('footer.copyright', { years: year > COPYRIGHT_START_YEAR ? `${COPYRIGHT_START_YEAR}-${year}` : year })}
      </div>
    </Layout.Footer>
  );
}
