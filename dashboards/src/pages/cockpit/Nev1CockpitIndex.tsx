import { useTranslation } from 'react-i18next';
import CockpitPlaceholder from './CockpitPlaceholder';

/** New-energy-vehicle cockpit: full screen, opened in a new tab; the real one comes with the cockpit issue. */
export default function Nev1CockpitIndex() {
  const { t } = useTranslation('layout');
  return <CockpitPlaceholder title={t('cockpit.nev')} testId="cockpit-nev1-index" />;
}
