/** The "fences" switch of the live map and the replay (kept per browser); `data-count`: fences drawn. */
import { Switch } from 'antd';
import { useTranslation } from 'react-i18next';
import { useAccess } from '../../auth/access';

export function FenceToggle({ on, onChange, count }: { on: boolean; onChange: (on: boolean) => void; count: number | null }) {
  const { t } = useTranslation('fence');
  if (!useAccess().can('fence', 'query')) return null;
  return (
    <span className="fw-fence-toggle" data-testid="fence-toggle-wrap" data-count={count ?? ''}>
      <span>{t('overlay.show')}</span>{' '}
      <Switch size="small" checked={on} onChange={onChange} data-testid="fence-toggle" />
    </span>
  );
}
