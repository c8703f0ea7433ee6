import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

export default function Logo({ collapsed }: { collapsed?: boolean }) {
  const { t } = useTranslation('layout');
  return (
    <Link to="/" className="layout-logo" data-testid="logo">
      <img src="/favicon.svg" alt="" width={28} height={28} />
      {!collapsed && <h1>{t('appName')}</h1>}
    </Link>
  );
}
