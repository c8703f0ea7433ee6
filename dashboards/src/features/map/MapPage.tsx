/**
 * Live monitoring (console-spec §2 "dashboard/map"): the vehicle tree on the left, the map with the
 * ticked vehicles on the right, moved by the one live socket. This component renders when the user
 * ticks, selects or changes a setting, never per position update.
 */
import 'leaflet.markercluster/dist/MarkerCluster.css';
import 'leaflet.markercluster/dist/MarkerCluster.Default.css';
import './map.css';
import { message } from 'antd';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLiveHub, useLiveStatus } from '../../live/useLiveHub';
import { useMapConfig } from './hooks/useMapConfig';
import { useTicked, useTickedVehicles } from './hooks/useTicked';
import { useTickedPositions } from './hooks/useTickedPositions';
import { useVehicleDirectory } from './hooks/useVehicleDirectory';
import { availableBaseLayers, BLANK_LAYER_ID } from './layers/baseLayers';
import { BaseLayer } from './layers/BaseLayer';
import { VehicleMarkers } from './layers/VehicleMarkers';
import { LiveMap } from './LiveMap';
import { MapToolbar } from './MapToolbar';
import { DEFAULT_CENTER, DEFAULT_ZOOM } from './model/constants';
import { readPrefs, writePrefs, type MapPrefs } from './model/prefs';
import { ActionModal, type VehicleAction } from './popup/ActionModal';
import { VehiclePopupLayer } from './popup/VehiclePopupLayer';
import { deviceIdOfKey } from './tree/treeModel';
import { VehicleTree } from './tree/VehicleTree';

export default function MapPage() {
  const { t } = useTranslation('map');
  const hub = useLiveHub();
  const liveStatus = useLiveStatus(hub);
  const directory = useVehicleDirectory(hub);
  const model = directory.model;
  const [ticked, setTicked] = useTicked();
  const vehicles = useTickedVehicles(model, ticked);
  const config = useMapConfig();
  const [prefs, setPrefsState] = useState<MapPrefs>(readPrefs);
  const [selectedKey, setSelectedKey] = useState<string | null>(null);
  const [action, setAction] = useState<{ action: VehicleAction; plate: string } | null>(null);
  const [fitRequest, setFitRequest] = useState(0);
  const [messageApi, messageHolder] = message.useMessage();

  const setPrefs = (next: Partial<MapPrefs>) => {
    const merged = { ...prefs, ...next };
    setPrefsState(merged);
    writePrefs(merged);
  };

  const onNoPosition = useCallback(
    (plates: string[]) => {
      const shown = plates.slice(0, 3).join(t('messages.listSeparator'));
      const names = plates.length > 3 ? t('messages.andMore', { first: shown, count: plates.length }) : shown;
      void messageApi.warning(t('messages.noPositionPlates', { plates: names }));
    },
    [messageApi, t],
  );
  useTickedPositions(hub, vehicles, onNoPosition);

  const layers = useMemo(() => availableBaseLayers(config ?? {}), [config]);
  const wantedLayer = prefs.baseLayer ?? config?.defaultBaseLayer ?? BLANK_LAYER_ID;
  const baseLayer = layers.find((l) => l.id === wantedLayer) ?? layers[0];

  const tickedSet = useMemo(() => new Set(ticked), [ticked]);
  const selected = useMemo(() => {
    if (!model || !selectedKey || !tickedSet.has(selectedKey)) return null;
    const car = model.cars.get(selectedKey);
    const deviceId = deviceIdOfKey(selectedKey);
    return car && deviceId !== null ? { deviceId, car } : null;
  }, [model, selectedKey, tickedSet]);

  const onVehicleClick = (key: string) => {
    if (deviceIdOfKey(key) === null) return;
    if (tickedSet.has(key)) {
      setTicked(ticked.filter((k) => k !== key));
      if (selectedKey === key) setSelectedKey(null);
    } else {
      setTicked([...ticked, key]);
      setSelectedKey(key);
    }
  };

  const onMarkerSelect = useCallback((deviceId: number) => setSelectedKey(model?.keyByDevice.get(deviceId) ?? null), [model]);
  const onPopupClose = useCallback(() => setSelectedKey(null), []);

  return (
    <div className="fw-map-page">
      {messageHolder}
      <aside className="fw-map-side">
        <VehicleTree
          model={model}
          loading={directory.loading}
          failed={directory.failed}
          onRetry={directory.reload}
          states={hub?.states ?? null}
          ticked={ticked}
          onTickedChange={setTicked}
          onVehicleClick={onVehicleClick}
        />
      </aside>
      <section className="fw-map-main">
        <MapToolbar
          layers={layers}
          baseLayer={baseLayer.id}
          onBaseLayer={(id) => setPrefs({ baseLayer: id })}
          styleFilter={prefs.styleFilter}
          onStyleFilter={(id) => setPrefs({ styleFilter: id })}
          clustering={prefs.clustering}
          onClustering={(on) => setPrefs({ clustering: on })}
          tickedCount={vehicles.length}
          onFit={() => setFitRequest((n) => n + 1)}
          liveStatus={liveStatus}
        />
        {config && (
          <LiveMap
            key={baseLayer.crs}
            crs={baseLayer.crs}
            coord={baseLayer.coord}
            center={config.mapCenter ?? DEFAULT_CENTER}
            zoom={config.defaultZoom ?? DEFAULT_ZOOM}
          >
            <BaseLayer layer={baseLayer} styleFilter={prefs.styleFilter} />
            {hub && (
              <>
                <VehicleMarkers
                  hub={hub}
                  vehicles={vehicles}
                  clustering={prefs.clustering}
                  coord={baseLayer.coord}
                  fitRequest={fitRequest}
                  onSelect={onMarkerSelect}
                />
                <VehiclePopupLayer
                  hub={hub}
                  coord={baseLayer.coord}
                  selected={selected}
                  onClose={onPopupClose}
                  onAction={(next, car) => setAction({ action: next, plate: car.plateNumber })}
                />
              </>
            )}
          </LiveMap>
        )}
      </section>
      <ActionModal action={action?.action ?? null} plate={action?.plate ?? ''} onClose={() => setAction(null)} />
    </div>
  );
}
