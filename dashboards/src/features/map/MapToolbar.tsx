/** Base layer, style filter, clustering and follow switches, "show all" and the live connection status. */
import { AimOutlined } from '@ant-design/icons';
import { Badge, Button, Select, Space, Switch, Tooltip } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { STYLE_FILTER_IDS, type BaseLayerDef } from './layers/baseLayers';

export interface MapToolbarProps {
  layers: readonly BaseLayerDef[];
  baseLayer: string;
  onBaseLayer: (id: string) => void;
  styleFilter: string;
  onStyleFilter: (id: string) => void;
  clustering: boolean;
  onClustering: (on: boolean) => void;
  follow: boolean;
  onFollow: (on: boolean) => void;
  tickedCount: number;
  onFit: () => void;
  liveStatus: string;
  /** More switches of other features (the fences toggle). */
  extra?: ReactNode;
}

const STATUS_BADGE: Record<string, 'success' | 'processing' | 'warning' | 'default' | 'error'> = {
  connected: 'success',
  connecting: 'processing',
  reconnecting: 'warning',
  stopped: 'default',
  idle: 'default',
};

export function MapToolbar(props: MapToolbarProps) {
  const { t } = useTranslation('map');
  return (
    <div className="fw-map-toolbar">
      <Space wrap size="small">
        <Select
          size="small"
          value={props.baseLayer}
          onChange={props.onBaseLayer}
          popupMatchSelectWidth={false}
          aria-label={t('toolbar.baseLayer')}
          data-testid="map-base-layer"
          options={props.layers.map((layer) => ({
            value: layer.id,
            label: layer.labelKey ? t(layer.labelKey) : (layer.label ?? layer.id),
          }))}
        />
        <Select
          size="small"
          value={props.styleFilter}
          onChange={props.onStyleFilter}
          popupMatchSelectWidth={false}
          aria-label={t('toolbar.style')}
          data-testid="map-style"
          options={STYLE_FILTER_IDS.map((id) => ({ value: id, label: t(`styles.${id}`) }))}
        />
        <Space size={4}>
          <Switch size="small" checked={props.clustering} onChange={props.onClustering} data-testid="cluster-toggle" />
          <span>{t('toolbar.cluster')}</span>
        </Space>
        <Tooltip title={t('follow.tooltip')}>
          <Space size={4}>
            <Switch size="small" checked={props.follow} onChange={props.onFollow} data-testid="follow-toggle" />
            <span>{t('follow.label')}</span>
          </Space>
        </Tooltip>
        <Tooltip title={t('toolbar.fit')}>
          <Button size="small" icon={<AimOutlined />} onClick={props.onFit} data-testid="map-fit">
            {t('toolbar.ticked', { count: props.tickedCount })}
          </Button>
        </Tooltip>
        {props.extra}
        <span data-testid="live-status" data-status={props.liveStatus}>
          <Badge status={STATUS_BADGE[props.liveStatus] ?? 'default'} text={t(`live.${props.liveStatus}`)} />
        </span>
      </Space>
    </div>
  );
}
