import { useTranslation } from 'react-i18next';
import CockpitPlaceholder from './CockpitPlaceholder';

/** Fleet monitoring cockpit: full screen, opened in a new tab; the real one comes with the cockpit issue. */
export default function CockpitIndex() {
  const { t } = useTranslation('layout');
  return <CockpitPlaceholder title={t('cockpit.fleet')} testId="cockpit-index" />;
}
