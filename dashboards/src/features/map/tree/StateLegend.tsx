/** The colour legend of the business states (platform-spec §4 tree icon colours). */
import { useTranslation } from 'react-i18next';
import { BIZ_DRIVING, BIZ_ENGINE_OFF, BIZ_NO_SIGNAL, BIZ_OFFLINE, BIZ_PARKED, stateColour } from '../../../live/bizState';

const SHOWN = [BIZ_DRIVING, BIZ_PARKED, BIZ_ENGINE_OFF, BIZ_NO_SIGNAL, BIZ_OFFLINE];

export function StateLegend() {
  const { t } = useTranslation('map');
  return (
    <div className="fw-state-legend" data-testid="state-legend" aria-label={t('legend.title')}>
      {SHOWN.map((state) => (
        <span key={state} className="fw-state-legend-item" data-state={state}>
          <span className="fw-tree-dot" style={{ background: stateColour(state) }} />
          {t(`bizState.${state}`)}
        </span>
      ))}
    </div>
  );
}
