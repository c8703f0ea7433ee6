/**
 * The exchange vehicles (reported by inferior platforms over JT/T 809) at their last position, on the live map's
 * own components: the configured base layer and the vehicle marker layer (arrow, heading, plate label,
 * clustering). Read over REST and refreshed every REFRESH_MS; a marker's id is the exchange vehicle's id. A click on
 * a marker opens its live video and recordings through its platform (ExchangeVideoDialog).
 */
import { Empty } from 'antd';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import '../map/map.css';
import { useMapConfig } from '../map/hooks/useMapConfig';
import { LiveMap } from '../map/LiveMap';
import { BaseLayer } from '../map/layers/BaseLayer';
import { availableBaseLayers, BLANK_LAYER_ID } from '../map/layers/baseLayers';
import type { CoordSystem } from '../map/layers/coords';
import { VehicleMarkerLayer } from '../map/layers/VehicleMarkerLayer';
import { claimView, useLeafletMap } from '../map/mapContext';
import { DEFAULT_CENTER } from '../map/model/constants';
import { readPrefs } from '../map/model/prefs';
import type { LivePosition } from '../../live/types';
import type { ListRecord } from '../list/types';
import { fetchPositionedVehicles } from './api';
import ExchangeVideoDialog from './ExchangeVideoDialog';
import { toPosition } from './positions';

const REFRESH_MS = 15000;

function ExchangeMarkers({ rows, coord, onSelect }: { rows: ListRecord[]; coord: CoordSystem; onSelect: (id: number) => void }) {
  const map = useLeafletMap();
  const layerRef = useRef<VehicleMarkerLayer | null>(null);
  const select = useRef(onSelect);
  useEffect(() => { select.current = onSelect; });
  useEffect(() => {
    const created = new VehicleMarkerLayer(map, { clustering: true, coord, onSelect: (id) => select.current(id) });
    layerRef.current = created;
    return () => {
      layerRef.current = null;
      created.destroy();
    };
  }, [map, coord]);
  useEffect(() => {
    const layer = layerRef.current;
    if (!layer) return;
    const positions = new Map<number, LivePosition>();
    for (const row of rows) {
      const position = toPosition(row);
      if (position) positions.set(position.deviceId, position);
    }
    layer.show(rows.filter((r) => positions.has(Number(r.id))).map((r) => ({ deviceId: Number(r.id), plate: String(r.plate) })),
      (id) => positions.get(id));
    if (layer.fit()) claimView(map);
  }, [rows, map, coord]);
  return null;
}

export default function ExchangeVehicleMap() {
  const { t } = useTranslation('inferior');
  const config = useMapConfig();
  const [prefs] = useState(readPrefs);
  const layers = useMemo(() => availableBaseLayers(config ?? {}), [config]);
  const baseLayer = layers.find((l) => l.id === (prefs.baseLayer ?? config?.defaultBaseLayer ?? BLANK_LAYER_ID)) ?? layers[0];
  const [rows, setRows] = useState<ListRecord[] | null>(null);
  const [watching, setWatching] = useState<{ id: number; plate: string } | null>(null);
  const open = (id: number) => {
    const row = rows?.find((r) => Number(r.id) === id);
    if (row) setWatching({ id, plate: String(row.plate) });
  };
  useEffect(() => {
    const controller = new AbortController();
    const load = () => void fetchPositionedVehicles(controller.signal).then((reply) => {
      if (reply.code === 0 && reply.data) setRows(reply.data.list);
    });
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => {
      clearInterval(timer);
      controller.abort();
    };
  }, []);
  return (
    <div style={{ height: 'calc(100vh - 160px)', minHeight: 360, display: 'flex', flexDirection: 'column' }}
      data-testid="exchange-map" data-count={rows?.length ?? ''}>
      {rows !== null && rows.length === 0 && <Empty description={t('map.empty')} />}
      {config && baseLayer && (
        <LiveMap key={baseLayer.crs} crs={baseLayer.crs} coord={baseLayer.coord} center={config.mapCenter ?? DEFAULT_CENTER}
          zoom={config.defaultZoom ?? 12}>
          <BaseLayer layer={baseLayer} styleFilter={prefs.styleFilter} />
          {rows && <ExchangeMarkers rows={rows} coord={baseLayer.coord} onSelect={open} />}
        </LiveMap>
      )}
      <ExchangeVideoDialog vehicle={watching} onClose={() => setWatching(null)} />
    </div>
  );
}
