/**
 * Track replay (console-spec §4, §9; platform-spec §4): pick one or several vehicles and a time range,
 * load their tracks (contract B, thinned by the server), and replay them side by side on one clock,
 * with the speed chart and the table of points following. `?carId=&start=&end=` (epoch ms) preselects
 * a vehicle and loads it at once: the links from the logs and the car detail page.
 */
import 'leaflet/dist/leaflet.css';
import '../map/map.css';
import './replay.css';
import { Alert, Card, Col, Row, Select, Space, Switch, Tabs, Tag } from 'antd';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { useMapConfig } from '../map/hooks/useMapConfig';
import { availableBaseLayers, BLANK_LAYER_ID } from '../map/layers/baseLayers';
import { BaseLayer } from '../map/layers/BaseLayer';
import { BaseLayerFallbackNotice } from '../map/layers/BaseLayerFallbackNotice';
import { useBaseLayerFallback } from '../map/layers/useBaseLayerFallback';
import { LiveMap } from '../map/LiveMap';
import { DEFAULT_CENTER, DEFAULT_ZOOM } from '../map/model/constants';
import { readPrefs, writePrefs } from '../map/model/prefs';
import { exportTrack, fetchTrack, searchCars, type CarOption, type TrackRange } from './api';
import { PointTable } from './PointTable';
import { ReplayControls } from './ReplayControls';
import { rangeFromQuery } from './range';
import { ReplayFilters } from './ReplayFilters';
import { SpeedChart } from './SpeedChart';
import { timelineIndexNear, toVehicleTrack, TRACK_COLORS, type VehicleTrack } from './track';
import { TrackLayers } from './TrackLayers';
import { useReplay } from './useReplay';
import { saveFile } from '../list/api';
import { FenceOverlay } from '../fence/FenceOverlay';
import { FenceToggle } from '../fence/FenceToggle';
import { useShowFences } from '../fence/overlay';

const TABLE_HEIGHT = 220;

export default function ReplayPage() {
  const { t } = useTranslation('replay');
  const [params] = useSearchParams();
  const [cars, setCars] = useState<CarOption[]>([]);
  const [range, setRange] = useState<TrackRange>(() => rangeFromQuery(params));
  const [tracks, setTracks] = useState<VehicleTrack[]>([]);
  const [loading, setLoading] = useState(false);
  const [errors, setErrors] = useState<string[]>([]);
  const [focusedCarId, setFocusedCarId] = useState<number | null>(null);
  const [following, setFollowing] = useState(true);
  const [showFences, setShowFences] = useShowFences();
  const [fenceCount, setFenceCount] = useState<number | null>(null);
  const config = useMapConfig();
  const [prefs, setPrefs] = useState(readPrefs);
  const replay = useReplay(tracks);

  const load = useCallback(async (selected: CarOption[], wanted: TrackRange) => {
    setLoading(true);
    setErrors([]);
    const replies = await Promise.all(selected.map((car) => fetchTrack(car.carId, wanted)));
    const failed: string[] = [];
    const loaded: VehicleTrack[] = [];
    replies.forEach((reply, i) => {
      if (reply.code !== 0 || !reply.data) failed.push(`${selected[i].plateNumber}: ${reply.message}`);
      else loaded.push(toVehicleTrack(reply.data, TRACK_COLORS[i % TRACK_COLORS.length]));
    });
    setErrors(failed);
    setTracks(loaded);
    setFocusedCarId(loaded[0]?.carId ?? null);
    setLoading(false);
  }, []);

  // A link with ?carId= loads that vehicle at once.
  useEffect(() => {
    const carId = Number(params.get('carId'));
    if (!Number.isInteger(carId) || carId <= 0) return undefined;
    const controller = new AbortController();
    void searchCars('', controller.signal, [carId]).then((found) => {
      if (controller.signal.aborted) return;
      const car = found.find((c) => c.carId === carId) ?? { carId, plateNumber: String(carId) };
      setCars([car]);
      void load([car], rangeFromQuery(params));
    });
    return () => controller.abort();
    // Only the query the page was opened with: each query is a tab of its own.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const layers = useMemo(() => availableBaseLayers(config ?? {}), [config]);
  // The live map's offline fallback: tiles that do not load give way to the offline layer, with a notice.
  const layerChoice = useBaseLayerFallback(layers, prefs.baseLayer ?? config?.defaultBaseLayer ?? BLANK_LAYER_ID);
  const { baseLayer } = layerChoice;
  const focused = tracks.find((track) => track.carId === focusedCarId) ?? tracks[0] ?? null;
  const seekTime = useCallback((time: number) => replay.clock.seek(timelineIndexNear(replay.timeline, time)), [replay.clock, replay.timeline]);
  const loadedCars = tracks.map((track) => ({ carId: track.carId, plateNumber: track.plateNumber }));
  const empty = tracks.filter((track) => track.points.length === 0);

  const onExport = async (car: CarOption, format: 'csv' | 'gpx' | 'kml') => {
    const file = await exportTrack(car.carId, format, range, car.plateNumber);
    if (file) saveFile(file.blob, file.fileName);
  };

  return (
    <div className="fw-replay-page" data-testid="replay-page">
      <Card size="small">
        <ReplayFilters cars={cars} onCars={setCars} range={range} onRange={setRange} loading={loading}
          onLoad={() => void load(cars, range)} loaded={loadedCars} onExport={(car, format) => void onExport(car, format)} />
        {errors.map((error) => <Alert key={error} type="error" showIcon title={error} data-testid="replay-error" style={{ marginTop: 8 }} />)}
        {empty.length > 0 && (
          <Alert type="info" showIcon data-testid="replay-empty" style={{ marginTop: 8 }}
            title={t('noTrack', { plates: empty.map((track) => track.plateNumber).join(', ') })} />
        )}
        {tracks.some((track) => track.thinned) && (
          <div className="fw-replay-thinned" data-testid="replay-thinned">
            {tracks.filter((track) => track.thinned).map((track) => t('thinned', { plate: track.plateNumber, shown: track.points.length, total: track.total })).join('; ')}
          </div>
        )}
        {tracks.some((track) => track.flagged > 0) && (
          <div className="fw-replay-thinned" data-testid="replay-flagged">
            {tracks.filter((track) => track.flagged > 0).map((track) => t('flagged', { plate: track.plateNumber, count: track.flagged })).join('; ')}
          </div>
        )}
        {tracks.some((track) => track.alarmsTruncated) && (
          <div className="fw-replay-thinned" data-testid="replay-alarms-truncated">
            {tracks.filter((track) => track.alarmsTruncated).map((track) => t('alarms.truncated', { plate: track.plateNumber, count: track.alarms.length })).join('; ')}
          </div>
        )}
      </Card>
      <div className="fw-replay-map">
        <div className="fw-replay-map-tools">
          <Space wrap>
            {tracks.map((track) => (
              <Tag key={track.carId} color={track.color}>
                {track.plateNumber}
                {track.alarms.length > 0 && <span data-testid={`replay-alarm-count-${track.carId}`}> · {t('alarms.count', { count: track.alarms.length })}</span>}
              </Tag>
            ))}
            <span>{t('follow')}</span>
            <Switch size="small" checked={following} onChange={setFollowing} data-testid="replay-follow" />
            <FenceToggle on={showFences} onChange={setShowFences} count={showFences ? fenceCount : null} />
            <Select size="small" style={{ width: 140 }} value={baseLayer.id} data-testid="replay-base-layer"
              onChange={(id: string) => {
                const next = { ...prefs, baseLayer: id };
                layerChoice.retry();
                setPrefs(next);
                writePrefs(next);
              }}
              options={layers.map((l) => ({ value: l.id, label: l.labelKey ? t(l.labelKey, { ns: 'map' }) : l.label }))} />
          </Space>
        </div>
        <BaseLayerFallbackNotice choice={layerChoice} />
        {config && (
          <LiveMap key={baseLayer.crs} crs={baseLayer.crs} coord={baseLayer.coord} center={config.mapCenter ?? DEFAULT_CENTER} zoom={config.defaultZoom ?? DEFAULT_ZOOM}>
            <BaseLayer layer={baseLayer} styleFilter={prefs.styleFilter} onTilesFailed={layerChoice.onTilesFailed} />
            {showFences && <FenceOverlay coord={baseLayer.coord} onCount={setFenceCount} />}
            <TrackLayers tracks={tracks} coord={baseLayer.coord} pointIndex={replay.pointIndex} focusedCarId={focused?.carId ?? null}
              following={following} onPointClick={seekTime} />
          </LiveMap>
        )}
      </div>
      <Card size="small">
        <ReplayControls replay={replay} />
      </Card>
      <Row gutter={[12, 12]}>
        <Col xs={24} xl={10}>
          <Card size="small" title={t('chart.title')}>
            <SpeedChart tracks={tracks} time={replay.time} onSeekTime={seekTime} />
          </Card>
        </Col>
        <Col xs={24} xl={14}>
          <Card size="small" title={t('table.title')} styles={{ body: { padding: 0 } }}>
            {tracks.length > 1 && (
              <Tabs size="small" activeKey={String(focused?.carId ?? '')} onChange={(key) => setFocusedCarId(Number(key))}
                items={tracks.map((track) => ({ key: String(track.carId), label: track.plateNumber }))} style={{ padding: '0 12px' }} />
            )}
            <PointTable track={focused} current={focused ? (replay.pointIndex.get(focused.carId) ?? null) : null}
              height={TABLE_HEIGHT} onSeekTime={seekTime} />
          </Card>
        </Col>
      </Row>
    </div>
  );
}
