/**
 * The loaded tracks as a map layer component: one TrackLayer per vehicle (created when the tracks or
 * the base layer's coordinate system change, the view then fitted to them), markers moved as the clock
 * runs, and the focused vehicle's current point in a popup (console-spec §2 track point popup) that
 * keeps the marker in view. Stop labels that would collide at the current zoom show as dots
 * (declutter.ts), the longest stops keeping their labels; zooming in brings the others back.
 */
import L from 'leaflet';
import { useEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { useTranslation } from 'react-i18next';
import type { CoordSystem } from '../map/layers/coords';
import { claimView, useLeafletMap } from '../map/mapContext';
import { formatTime } from '../map/popup/format';
import { TrackPointPopup } from '../map/popup/TrackPointPopup';
import StatusText from '../log/StatusText';
import { alarmMarkerTitle, type AlarmMarker } from './alarms';
import { visibleLabels } from './declutter';
import { formatDuration, type TrackStop, type VehicleTrack } from './track';
import { TrackLayer } from './trackLayer';

export interface TrackLayersProps {
  tracks: readonly VehicleTrack[];
  coord: CoordSystem;
  pointIndex: Map<number, number | null>;
  focusedCarId: number | null;
  following: boolean;
  onPointClick: (time: number) => void;
}

const FIT_PADDING_PX = 40;

export function TrackLayers({ tracks, coord, pointIndex, focusedCarId, following, onPointClick }: TrackLayersProps) {
  const map = useLeafletMap();
  const { t } = useTranslation('replay');
  const [layers, setLayers] = useState<TrackLayer[]>([]);
  const onClick = useRef(onPointClick);
  const [popupOpen, setPopupOpen] = useState(true);
  const [container] = useState(() => document.createElement('div'));
  const popup = useRef<L.Popup | null>(null);

  useEffect(() => {
    onClick.current = onPointClick;
  });

  useEffect(() => {
    const renderer = L.canvas({ padding: 0.5 });
    const duration = (stop: TrackStop) => {
      const { h, m, s } = formatDuration(stop.durationS);
      return h ? t('duration.hm', { h, m }) : m ? t('duration.ms', { m, s }) : t('duration.s', { s });
    };
    const texts = {
      start: t('points.start'),
      end: t('points.end'),
      stopLabel: (stop: TrackStop) => `${t(`stops.${stop.kind}Short`)} ${duration(stop)}`,
      stopTitle: (stop: TrackStop) =>
        t('stops.title', { kind: t(`stops.${stop.kind}`), start: formatTime(stop.start), end: formatTime(stop.end), duration: duration(stop) }),
      alarmTitle: (marker: AlarmMarker) => alarmMarkerTitle(marker.alarm, t, formatTime),
    };
    const created = tracks.map((track) => new TrackLayer(map, track, coord, renderer, texts, (time) => onClick.current(time)));
    setLayers(created);
    const bounds = created.map((l) => l.bounds()).filter((b): b is L.LatLngBounds => !!b);
    if (bounds.length) {
      const all = bounds.reduce((acc, b) => acc.extend(b), L.latLngBounds(bounds[0].getSouthWest(), bounds[0].getNorthEast()));
      map.fitBounds(all, { padding: [FIT_PADDING_PX, FIT_PADDING_PX], maxZoom: 16 });
      claimView(map);
    }
    return () => {
      for (const layer of created) layer.destroy();
      renderer.remove();
    };
  }, [map, tracks, coord, t]);

  useEffect(() => {
    for (const layer of layers) layer.showPoint(pointIndex.get(layer.track.carId) ?? null);
  }, [layers, pointIndex]);

  useEffect(() => {
    const declutter = () => {
      const labels = Array.from(map.getContainer().querySelectorAll<HTMLElement>('.fw-replay-stop > span'));
      for (const label of labels) label.parentElement?.classList.remove('fw-replay-stop-dot'); // measure at full size
      const shown = visibleLabels(labels.map((label, id) => {
        const { left, top, right, bottom } = label.getBoundingClientRect();
        return { id, left, top, right, bottom, priority: Number(label.dataset.duration) || 0 };
      }));
      labels.forEach((label, id) => {
        label.parentElement?.classList.toggle('fw-replay-stop-dot', !shown.has(id));
        label.dataset.label = shown.has(id) ? 'shown' : 'dot';
      });
    };
    declutter();
    map.on('zoomend', declutter);
    return () => {
      map.off('zoomend', declutter);
    };
  }, [map, layers]);

  const focused = layers.find((l) => l.track.carId === focusedCarId) ?? layers[0] ?? null;
  const focusedIndex = focused ? (pointIndex.get(focused.track.carId) ?? null) : null;
  const point = focused && focusedIndex !== null ? focused.track.points[focusedIndex] : null;

  useEffect(() => {
    const instance = L.popup({ maxWidth: 320, minWidth: 240, autoPan: true, autoPanPadding: [16, 16], className: 'fw-leaflet-popup', offset: [0, -8], closeOnClick: false });
    instance.setContent(container);
    instance.on('remove', () => setPopupOpen(false));
    popup.current = instance;
    return () => {
      instance.off();
      instance.remove();
      popup.current = null;
    };
  }, [container]);

  // Clicking a vehicle's marker opens the popup again after it was closed.
  useEffect(() => {
    const open = () => setPopupOpen(true);
    for (const layer of layers) layer.markerLayer().on('click', open);
    return () => {
      for (const layer of layers) layer.markerLayer().off('click', open);
    };
  }, [layers]);

  useEffect(() => {
    const instance = popup.current;
    if (!instance || !focused) return;
    if (!point || !popupOpen) {
      if (instance.isOpen()) {
        instance.off('remove');
        map.closePopup(instance);
        instance.on('remove', () => setPopupOpen(false));
      }
      return;
    }
    const at = focused.markerLayer().getLatLng();
    // Following: the popup is kept inside the map too (it may pan the map); otherwise the view is the user's.
    instance.options.autoPan = following;
    instance.setLatLng(at);
    if (!instance.isOpen()) instance.openOn(map);
    if (following && !map.getBounds().pad(-0.1).contains(at)) map.panTo(at, { animate: false });
  }, [map, focused, point, popupOpen, following]);

  if (!point) return null;
  return createPortal(
    <>
      <TrackPointPopup point={point} />
      {point.status != null && (
        <div className="fw-popup-row fw-track-popup">
          <span className="fw-popup-label">{t('popup.status')}</span>
          <span className="fw-popup-value"><StatusText bits={point.status} /></span>
        </div>
      )}
    </>,
    container,
  );
}
