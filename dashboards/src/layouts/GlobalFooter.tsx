import { CopyrightOutlined } from '@ant-design/icons';
import { Layout } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSystemFileUrl } from '../api/systemFiles';
import { COPYRIGHT_START_YEAR, FOOTER_LINKS, OWN_MANUALS } from '../config';

const LINKS: { key: keyof typeof FOOTER_LINKS; label: string }[] = [
  { key: 'home', label: 'footer.home' },
  { key: 'source', label: 'footer.source' },
  { key: 'apiManual', label: 'footer.apiManual' },
  { key: 'userManual', label: 'footer.userManual' },
];

export default function GlobalFooter() {
  const { t, i18n } = useTranslation('layout');
  const year = new Date().getFullYear();
  const hrefs: Record<string, string> = {
    ...FOOTER_LINKS,
    userManual: FOOTER_LINKS.userManual.replace('{lng}', i18n.language),
  };
  // The build's own manuals by their system file URL (path?t=modifyTime, console-spec §7) once signed in.
  hrefs.apiManual = useSystemFileUrl(OWN_MANUALS.apiManual ? 'apiManual' : null, hrefs.apiManual);
  hrefs.userManual = useSystemFileUrl(OWN_MANUALS.userManual ? `userManual-${i18n.language}` : null, hrefs.userManual);
  return (
    <Layout.Footer className="global-footer" data-testid="global-footer">
      <div className="global-footer-links">
        {LINKS.map(({ key, label }) => (
          <a key={key} href={hrefs[key]} data-testid={`footer-${key}`} target={key === 'home' ? undefined : '_blank'} rel="noreferrer">
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
