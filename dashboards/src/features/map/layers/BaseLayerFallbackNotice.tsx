/** The notice of the offline fallback (useBaseLayerFallback.ts), with a retry of the chosen layer. */
import { Alert, Button } from 'antd';
import { useTranslation } from 'react-i18next';
import type { BaseLayerChoice } from './useBaseLayerFallback';

export function BaseLayerFallbackNotice({ choice }: { choice: BaseLayerChoice }) {
  const { t } = useTranslation('map');
  if (!choice.failed) return null;
  return (
    <Alert
      type="warning"
      showIcon
      banner
      data-testid="base-layer-fallback"
      title={t('baseLayer.fallback')}
      action={
        <Button size="small" onClick={choice.retry}>
          {t('baseLayer.retry')}
        </Button>
      }
    />
  );
}
