/**
 * Live monitoring (console-spec §2 "dashboard/map"): the vehicle tree on the left, the map with the
 * ticked vehicles on the right and the live vehicle table under it, moved by the one live socket; the
 * ticked vehicles' online/offline and running-state changes as notices (enterprise switch permitting).
 * On load (and after every reconnect) one bulk read sets every vehicle's state and last fix; the
 * first open in a tab shows the fleet fitted to view. This component renders when the user ticks,
 * selects or changes a setting, never per position update.
 */
import 'leaflet.markercluster/dist/MarkerCluster.css';
import 'leaflet.markercluster/dist/MarkerCluster.Default.css';
import './map.css';
import { message } from 'antd';
import { useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLiveHub, useLiveStatus } from '../../live/useLiveHub';
import { isVehicleOnline } from '../../live/vehicleStates';
import { useFleetSnapshot } from './hooks/useFleetSnapshot';
import { useMapConfig } from './hooks/useMapConfig';
import { useTicked, useTickedVehicles } from './hooks/useTicked';
import { useTickedPositions } from './hooks/useTickedPositions';
import { useVehicleSearch } from './hooks/useVehicleSearch';
import { carStates, useVehicleDirectory } from './hooks/useVehicleDirectory';
import { availableBaseLayers, BLANK_LAYER_ID } from './layers/baseLayers';
import { BaseLayer } from './layers/BaseLayer';
import { BaseLayerFallbackNotice } from './layers/BaseLayerFallbackNotice';
import { useBaseLayerFallback } from './layers/useBaseLayerFallback';
import { VehicleMarkers } from './layers/VehicleMarkers';
import { LiveMap } from './LiveMap';
import { MapToolbar } from './MapToolbar';
import { fetchCars } from './model/api';
import StateChangeNotices from './notices/StateChangeNotices';
import { DEFAULT_CENTER, DEFAULT_ZOOM } from './model/constants';
import { firstViewKeys } from './model/firstView';
import { hasStoredTicked, readPrefs, writePrefs, type MapPrefs } from './model/prefs';
import type { CarRow } from './model/types';
import { ActionModal, type VehicleAction } from './popup/ActionModal';
import { VehiclePopupLayer } from './popup/VehiclePopupLayer';
import { LiveVehicleTable } from './table/LiveVehicleTable';
import { deviceIdOfKey, type TreeTab } from './tree/treeModel';
import { VehicleTree } from './tree/VehicleTree';
import { useFollowedCars } from './model/followed';
import { FenceOverlay } from '../fence/FenceOverlay';
import { FenceToggle } from '../fence/FenceToggle';
import { useShowFences } from '../fence/overlay';

const FIRST_VIEW_DELAY_MS = 250;
const FIRST_VIEW_FALLBACK_LIMIT = 200;

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
  const [action, setAction] = useState<{ action: VehicleAction; car: CarRow } | null>(null);
  const [fitRequest, setFitRequest] = useState(0);
  const [centreRequest, setCentreRequest] = useState(0);
  // Bumped by every pick of a vehicle (marker, tree, table): its popup opens even when the key was already selected.
  // A click on the marker of the vehicle whose popup is open first closes that popup (Leaflet's preclick, so
  // onPopupClose clears the key), then selects the same key again in the same task: React batches the two, the key
  // looks unchanged, and without this the popup stayed closed for every later click on that marker.
  const [openRequest, setOpenRequest] = useState(0);
  const [tab, setTab] = useState<TreeTab>('all');
  const [query, setQuery] = useState('');
  const [showFences, setShowFences] = useShowFences();
  const [fenceCount, setFenceCount] = useState<number | null>(null);
  const matches = useVehicleSearch(model, useDeferredValue(query));
  const { followed, toggle: toggleFollow } = useFollowedCars();
  const [messageApi, messageHolder] = message.useMessage();
  const snapshot = useFleetSnapshot(hub, async () => carStates(await fetchCars()));

  // First open in this tab, nothing ticked yet: show the fleet (online vehicles, else all located).
  const firstView = useRef(!hasStoredTicked());
  useEffect(() => {
    if (!firstView.current || !model || !hub || snapshot === 'loading') return undefined;
    // The bulk read's positions go through the hub's coalescer: tick once they are in the store.
    const timer = setTimeout(() => {
      firstView.current = false;
      const loaded = snapshot === 'loaded';
      // Without the bulk read no position is known yet: take a bounded number, read one by one.
      const keys = firstViewKeys(model, (id) => !loaded || !!hub.positions.get(id), (id) => isVehicleOnline(hub.states.get(id)));
      setTicked(loaded ? keys : keys.slice(0, FIRST_VIEW_FALLBACK_LIMIT));
    }, FIRST_VIEW_DELAY_MS);
    return () => clearTimeout(timer);
  }, [model, hub, snapshot, setTicked]);

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
  useTickedPositions(hub, vehicles, onNoPosition, snapshot !== 'loading');

  const layers = useMemo(() => availableBaseLayers(config ?? {}), [config]);
  const wantedLayer = prefs.baseLayer ?? config?.defaultBaseLayer ?? BLANK_LAYER_ID;
  // A network layer whose tiles do not load gives way to the offline layer, with a notice.
  const layerChoice = useBaseLayerFallback(layers, wantedLayer);
  const { baseLayer } = layerChoice;

  const tickedSet = useMemo(() => new Set(ticked), [ticked]);
  const selected = useMemo(() => {
    if (!model || !selectedKey || !tickedSet.has(selectedKey)) return null;
    const car = model.cars.get(selectedKey);
    const deviceId = deviceIdOfKey(selectedKey);
    return car && deviceId !== null ? { deviceId, car } : null;
  }, [model, selectedKey, tickedSet]);

  // Selecting a vehicle (its name in the tree, its row in the table) shows it: ticked, its popup open,
  // the map zoomed to it. A click on a ticked vehicle selects it again; unticking is the checkbox's.
  const selectVehicle = (key: string) => {
    if (deviceIdOfKey(key) === null) return;
    if (!tickedSet.has(key)) setTicked([...ticked, key]);
    setSelectedKey(key);
    setOpenRequest((n) => n + 1);
    setCentreRequest((n) => n + 1);
  };

  const onMarkerSelect = useCallback((deviceId: number) => {
    setSelectedKey(model?.keyByDevice.get(deviceId) ?? null);
    setOpenRequest((n) => n + 1);
  }, [model]);
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
          positions={hub?.positions ?? null}
          tab={tab}
          onTabChange={setTab}
          ticked={ticked}
          onTickedChange={setTicked}
          onVehicleClick={selectVehicle}
          query={query}
          onQueryChange={setQuery}
          matches={matches}
          followed={followed}
          onToggleFollow={toggleFollow}
        />
      </aside>
      <section className="fw-map-main">
        <MapToolbar
          layers={layers}
          baseLayer={baseLayer.id}
          onBaseLayer={(id) => {
            layerChoice.retry();
            setPrefs({ baseLayer: id });
          }}
          styleFilter={prefs.styleFilter}
          onStyleFilter={(id) => setPrefs({ styleFilter: id })}
          clustering={prefs.clustering}
          onClustering={(on) => setPrefs({ clustering: on })}
          follow={prefs.follow}
          onFollow={(on) => setPrefs({ follow: on })}
          tickedCount={vehicles.length}
          onFit={() => setFitRequest((n) => n + 1)}
          liveStatus={liveStatus}
          extra={<FenceToggle on={showFences} onChange={setShowFences} count={showFences ? fenceCount : null} />}
        />
        <BaseLayerFallbackNotice choice={layerChoice} />
        {config && (
          <LiveMap
            key={baseLayer.crs}
            crs={baseLayer.crs}
            coord={baseLayer.coord}
            center={config.mapCenter ?? DEFAULT_CENTER}
            zoom={config.defaultZoom ?? DEFAULT_ZOOM}
          >
            <BaseLayer layer={baseLayer} styleFilter={prefs.styleFilter} onTilesFailed={layerChoice.onTilesFailed} />
            {showFences && <FenceOverlay coord={baseLayer.coord} onCount={setFenceCount} />}
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
                  onAction={(next, car) => setAction({ action: next, car })}
                  follow={prefs.follow}
                  centreRequest={centreRequest}
                  openRequest={openRequest}
                />
              </>
            )}
          </LiveMap>
        )}
        <LiveVehicleTable hub={hub} model={model} tab={tab} matches={matches} followed={followed} selectedKey={selectedKey} onSelect={selectVehicle} />
      </section>
      <ActionModal action={action?.action ?? null} car={action?.car ?? null} onClose={() => setAction(null)} />
      <StateChangeNotices hub={hub} vehicles={vehicles} />
    </div>
  );
}
