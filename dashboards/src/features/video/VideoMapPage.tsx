/**
 * The monitoring view (route `dashboard/videoMap`; console-spec §2, platform-spec §2 "video-and-map
 * monitoring view"): a 4-box video grid in the left 60 %, a trace map with auto-popup in the right
 * 40 %, the downstream-message dialogs on top (the popup's buttons). Content height: the window's
 * minus 200 px (minus 210 px more with the reset flag), on every resize. Adding a vehicle plays its
 * channels and pops its vehicle up on the map; removing it stops every video of every device of that
 * car. Test ids: `video-map` , `monitor-cars`, `monitor-remove-<carId>`.
 */
import '../map/map.css';
import { Card, Empty, Select, Tag } from 'antd';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLiveHub } from '../../live/useLiveHub';
import { LiveMap } from '../map/LiveMap';
import { useMapConfig } from '../map/hooks/useMapConfig';
import { useTickedPositions } from '../map/hooks/useTickedPositions';
import { BaseLayer } from '../map/layers/BaseLayer';
import { BaseLayerFallbackNotice } from '../map/layers/BaseLayerFallbackNotice';
import { useBaseLayerFallback } from '../map/layers/useBaseLayerFallback';
import { availableBaseLayers, BLANK_LAYER_ID } from '../map/layers/baseLayers';
import { VehicleMarkers } from '../map/layers/VehicleMarkers';
import { fetchCars } from '../map/model/api';
import { DEFAULT_CENTER, DEFAULT_ZOOM } from '../map/model/constants';
import { readPrefs } from '../map/model/prefs';
import type { CarRow } from '../map/model/types';
import { ActionModal, type VehicleAction } from '../map/popup/ActionModal';
import { VehiclePopupLayer } from '../map/popup/VehiclePopupLayer';
import { MONITOR_VIDEO_SHARE, MONITOR_VIEW_WINDOWS } from './constants';
import { entryOf } from './entries';
import { useContentHeight } from './useContentHeight';
import { useVideoCars } from './useVideoCars';
import { useVideoGrid } from './useVideoGrid';
import { VideoGrid } from './VideoGrid';

export default function VideoMapPage() {
  const { t } = useTranslation('video');
  const hub = useLiveHub();
  const height = useContentHeight();
  const { nodes, online } = useVideoCars(hub);
  const grid = useVideoGrid(MONITOR_VIEW_WINDOWS, true);
  const [cars, setCars] = useState<CarRow[]>([]);
  const [monitored, setMonitored] = useState<number[]>([]);
  const [popupCar, setPopupCar] = useState<number | null>(null);
  const [action, setAction] = useState<{ action: VehicleAction; car: CarRow } | null>(null);
  const config = useMapConfig();
  const [prefs] = useState(readPrefs);

  useEffect(() => {
    const controller = new AbortController();
    void fetchCars(controller.signal).then((rows) => {
      if (!controller.signal.aborted) setCars(rows.filter((r) => Number(r.hasVideo) > 0));
    }).catch(() => undefined);
    return () => controller.abort();
  }, []);

  const byCar = useMemo(() => new Map(cars.map((c) => [c.carId, c])), [cars]);
  const vehicles = useMemo(() => monitored.flatMap((carId) => {
    const car = byCar.get(carId);
    return car?.masterDeviceId ? [{ key: `c_${carId}_${car.masterDeviceId}`, deviceId: car.masterDeviceId, plate: car.plateNumber }] : [];
  }), [monitored, byCar]);
  useTickedPositions(hub, vehicles, () => undefined);

  const add = (carId: number) => {
    setMonitored((list) => (list.includes(carId) ? list : [...list, carId]));
    setPopupCar(carId);
  };
  // A vehicle's channels play once the channel tree has it: the car list and the tree are two requests, and a
  // vehicle picked before the tree arrived would otherwise be monitored without its videos.
  const played = useRef(new Set<number>());
  useEffect(() => {
    for (const carId of monitored) {
      const node = nodes?.find((n) => n.carId === carId);
      if (!node || played.current.has(carId)) continue;
      played.current.add(carId);
      void grid.open((node.children ?? []).filter((c) => c.kind === 'channel').slice(0, MONITOR_VIEW_WINDOWS).map((c) => entryOf(c)), online);
    }
  }, [monitored, nodes, grid, online]);
  const remove = useCallback((carId: number) => {
    played.current.delete(carId);
    setMonitored((list) => list.filter((id) => id !== carId));
    setPopupCar((current) => (current === carId ? null : current));
    void grid.closeWhere((entry) => entry.carId === carId); // every device of the car
  }, [grid]);

  const layers = useMemo(() => availableBaseLayers(config ?? {}), [config]);
  // The live map's offline fallback: tiles that do not load give way to the offline layer, with a notice.
  const layerChoice = useBaseLayerFallback(layers, prefs.baseLayer ?? config?.defaultBaseLayer ?? BLANK_LAYER_ID);
  const { baseLayer } = layerChoice;
  const popupRow = popupCar !== null ? byCar.get(popupCar) : undefined;
  const selected = popupRow?.masterDeviceId ? { deviceId: popupRow.masterDeviceId, car: popupRow } : null;
  const mapHeight = height - 48;

  return (
    <div data-testid="video-map">
      <Card size="small" styles={{ body: { padding: 8 } }} style={{ marginBottom: 8 }}>
        <span style={{ marginRight: 8 }}>{t('videoMap.monitored')}</span>
        <Select
          showSearch
          size="small"
          style={{ width: 220 }}
          placeholder={t('videoMap.add')}
          value={null}
          data-testid="monitor-cars"
          optionFilterProp="label"
          options={cars.filter((c) => !monitored.includes(c.carId)).map((c) => ({ value: c.carId, label: c.plateNumber }))}
          onChange={(carId: number | null) => carId !== null && add(carId)}
        />
        {monitored.map((carId) => (
          <Tag key={carId} closable color={popupCar === carId ? 'blue' : undefined} style={{ marginLeft: 8, cursor: 'pointer' }}
            data-testid={`monitor-car-${carId}`} onClick={() => setPopupCar(carId)}
            onClose={(e) => { e.preventDefault(); remove(carId); }}
            closeIcon={<span data-testid={`monitor-remove-${carId}`} aria-label={t('videoMap.remove')}>×</span>}>
            {byCar.get(carId)?.plateNumber ?? carId}
          </Tag>
        ))}
      </Card>
      <div style={{ display: 'flex', gap: 8, height: mapHeight }}>
        <div style={{ flex: `0 0 ${MONITOR_VIDEO_SHARE * 100}%`, minWidth: 0 }} data-testid="video-map-grid">
          {monitored.length === 0 && grid.slots.every((s) => !s)
            ? <Empty style={{ paddingTop: 80 }} description={t('videoMap.none')} />
            : <VideoGrid grid={grid} height={mapHeight} toolbar={false} />}
        </div>
        <div style={{ flex: 1, minWidth: 0, position: 'relative' }} data-testid="video-map-map" className="fw-map-main">
          <BaseLayerFallbackNotice choice={layerChoice} />
          {config && (
            <LiveMap key={baseLayer.crs} crs={baseLayer.crs} coord={baseLayer.coord} center={config.mapCenter ?? DEFAULT_CENTER} zoom={config.defaultZoom ?? DEFAULT_ZOOM}>
              <BaseLayer layer={baseLayer} styleFilter={prefs.styleFilter} onTilesFailed={layerChoice.onTilesFailed} />
              {hub && (
                <>
                  <VehicleMarkers hub={hub} vehicles={vehicles} clustering={false} coord={baseLayer.coord} fitRequest={monitored.length}
                    onSelect={(deviceId) => setPopupCar(cars.find((c) => c.masterDeviceId === deviceId)?.carId ?? null)} />
                  <VehiclePopupLayer hub={hub} coord={baseLayer.coord} selected={selected} onClose={() => setPopupCar(null)}
                    onAction={(next, car) => setAction({ action: next, car })} follow />
                </>
              )}
            </LiveMap>
          )}
        </div>
      </div>
      <ActionModal action={action?.action ?? null} car={action?.car ?? null} onClose={() => setAction(null)} />
    </div>
  );
}
