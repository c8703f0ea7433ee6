import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useSystemFileUrl } from '../api/systemFiles';

export default function Logo({ collapsed }: { collapsed?: boolean }) {
  const { t } = useTranslation('layout');
  const logo = useSystemFileUrl('logo', '/favicon.svg'); // console-spec §7: path?t=modifyTime
  return (
    <Link to="/" className="layout-logo" data-testid="logo">
      <img src={logo} alt="" width={28} height={28} data-testid="logo-image" />
      {!collapsed && <h1>{t('appName')}</h1>}
    </Link>
  );
}
