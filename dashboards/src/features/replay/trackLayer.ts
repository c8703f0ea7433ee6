/**
 * One vehicle's track on the map, imperative (created and removed by <TrackLayers>): the line with
 * direction arrows every 50 px, start / middle / end / alarm point styles (alarm: bit, active-safety
 * or video alarms), its stops with their durations, its alarm rows as markers (name and time on
 * hover; a click seeks to the alarm), and the replay marker, which only moves (attributes and
 * position) as the clock runs. The marker's element carries the reported WGS-84 point (data-lng,
 * data-lat) and its index.
 */
import L from 'leaflet';
import { crossedFenceId } from '../fence/overlay';
import { alarmMarkers, type AlarmMarker } from './alarms';
import { arrowsAlong, chevron, type PixelBounds } from './arrows';
import { toDisplay, type CoordSystem } from '../map/layers/coords';
import { pointStyle, type TrackStop, type VehicleTrack } from './track';

export interface TrackLayerTexts {
  start: string;
  end: string;
  stopLabel: (stop: TrackStop) => string;
  stopTitle: (stop: TrackStop) => string;
  alarmTitle: (marker: AlarmMarker) => string;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

export const MIDDLE_POINTS_ZOOM = 15;

const SVG_ARROW =
  '<svg viewBox="0 0 24 24" width="26" height="26"><path d="M12 2 L19.5 20.5 L12 16.5 L4.5 20.5 Z" fill="currentColor" stroke="#fff" stroke-width="1.6" stroke-linejoin="round"/></svg>';

export class TrackLayer {
  private readonly group = L.layerGroup();
  /** Ordinary points, shown only from MIDDLE_POINTS_ZOOM on (below it they would blur the line). */
  private readonly middle = L.layerGroup();
  private readonly arrows: L.Polyline;
  private readonly marker: L.Marker;
  private readonly element: HTMLElement;
  private readonly latLngs: L.LatLng[];
  private markerShown = false;

  constructor(
    private readonly map: L.Map,
    readonly track: VehicleTrack,
    coord: CoordSystem,
    renderer: L.Renderer,
    texts: TrackLayerTexts,
    onPointClick: (time: number) => void,
  ) {
    const { points, color } = track;
    this.latLngs = points.map((p) => L.latLng(toDisplay(p.lng, p.lat, coord)));
    L.polyline(this.latLngs, { color, weight: 4, opacity: 0.85, interactive: false, className: `fw-replay-line fw-replay-line-${track.carId}`, smoothFactor: 0 }).addTo(this.group);
    // SVG like the line, so the chevrons draw above it (one path; data-count for the tests)
    this.arrows = L.polyline([], { color: '#ffffff', weight: 2, opacity: 0.95, interactive: false, className: 'fw-replay-arrows' }).addTo(this.group);
    points.forEach((p, i) => {
      const style = pointStyle(i, points.length, p);
      if (style === 'start' || style === 'end') {
        const label = style === 'start' ? texts.start : texts.end;
        L.marker(this.latLngs[i], {
          icon: L.divIcon({ className: `fw-replay-endpoint fw-replay-${style}`, html: `<span data-testid="replay-${style}-${track.carId}">${label}</span>`, iconSize: [24, 24] }),
          zIndexOffset: 500,
        }).addTo(this.group).on('click', () => onPointClick(p.time));
        return;
      }
      const alarm = style === 'alarm';
      const circle = L.circleMarker(this.latLngs[i], {
        renderer,
        radius: alarm ? 5 : 2.5,
        color: alarm ? '#f5222d' : color,
        weight: alarm ? 2 : 1,
        fillColor: alarm ? '#ff4d4f' : '#ffffff',
        fillOpacity: 1,
        className: `fw-replay-point-${style}`,
      }).on('click', () => onPointClick(p.time));
      circle.addTo(alarm ? this.group : this.middle);
    });
    for (const stop of track.stops) {
      L.marker(toDisplay(stop.lng, stop.lat, coord), {
        icon: L.divIcon({
          className: `fw-replay-stop fw-replay-stop-${stop.kind}`,
          html: `<span data-testid="replay-stop-${stop.kind}" data-duration="${Math.round(stop.durationS)}">${texts.stopLabel(stop)}</span>`,
          iconSize: undefined,
        }),
        title: texts.stopTitle(stop),
        zIndexOffset: 200,
      }).addTo(this.group).on('click', () => onPointClick(stop.start));
    }
    for (const marker of alarmMarkers(track.alarms, points)) {
      const { alarm } = marker;
      // A fence crossing (alarm type 4, key fence:<id>:...) is marked as such on the track.
      const fenceId = crossedFenceId(alarm);
      const kind = marker.activeSafety ? 'safety' : fenceId !== null ? 'fence' : 'other';
      const title = texts.alarmTitle(marker);
      L.marker(toDisplay(marker.lng, marker.lat, coord), {
        icon: L.divIcon({
          className: `fw-replay-alarm fw-replay-alarm-${kind}`,
          html: `<span data-testid="replay-alarm-${alarm.id}" data-key="${escapeHtml(alarm.key)}" data-start="${alarm.start}"${fenceId !== null ? ` data-fence-id="${fenceId}"` : ''}>${fenceId !== null ? '⬡' : '!'}</span>`,
          iconSize: [18, 18],
        }),
        title,
        zIndexOffset: 300,
      })
        .bindTooltip(escapeHtml(title), { direction: 'top', offset: [0, -10], className: 'fw-replay-alarm-tooltip' })
        .addTo(this.group)
        .on('click', () => onPointClick(alarm.start));
    }
    this.element = document.createElement('div');
    this.element.className = 'fw-replay-vehicle';
    this.element.dataset.testid = `replay-marker-${track.carId}`;
    this.element.style.color = color;
    this.element.innerHTML = `${SVG_ARROW}<span class="fw-replay-plate"></span>`;
    (this.element.querySelector('.fw-replay-plate') as HTMLElement).textContent = track.plateNumber;
    this.marker = L.marker([0, 0], { icon: L.divIcon({ className: 'fw-replay-vehicle-icon', html: this.element, iconSize: [26, 26], iconAnchor: [13, 13] }), zIndexOffset: 1000 });
    this.group.addTo(map);
    this.drawArrows();
    map.on('zoomend moveend', this.drawArrows);
  }

  /** Lat/lng bounds of the whole track (for fitting the view). */
  bounds(): L.LatLngBounds | null {
    return this.latLngs.length ? L.latLngBounds(this.latLngs) : null;
  }

  markerLayer(): L.Marker {
    return this.marker;
  }

  /** Puts the replay marker on point `index` (null: no marker). */
  showPoint(index: number | null): void {
    if (index === null || index < 0 || index >= this.latLngs.length) {
      if (this.markerShown) this.marker.remove();
      this.markerShown = false;
      delete this.element.dataset.index;
      return;
    }
    const p = this.track.points[index];
    this.marker.setLatLng(this.latLngs[index]);
    if (!this.markerShown) this.marker.addTo(this.map);
    this.markerShown = true;
    const svg = this.element.querySelector('svg');
    if (svg) svg.style.transform = `rotate(${p.direction ?? 0}deg)`;
    Object.assign(this.element.dataset, { index: String(index), lng: String(p.lng), lat: String(p.lat), time: String(p.time) });
  }

  destroy(): void {
    this.map.off('zoomend moveend', this.drawArrows);
    this.marker.remove();
    this.middle.remove();
    this.group.remove();
  }

  /** Chevrons every 50 px along the line, only in (and a little around) the visible part. */
  private readonly drawArrows = () => {
    const zoom = this.map.getZoom();
    if (zoom >= MIDDLE_POINTS_ZOOM) this.middle.addTo(this.map);
    else this.middle.remove();
    const pixels = this.latLngs.map((ll) => this.map.project(ll, zoom));
    const view = this.map.getPixelBounds();
    const pad = 100;
    const bounds: PixelBounds | undefined = view.min && view.max
      ? { min: { x: view.min.x - pad, y: view.min.y - pad }, max: { x: view.max.x + pad, y: view.max.y + pad } }
      : undefined;
    const strokes = arrowsAlong(pixels, undefined, bounds).map((arrow) => chevron(arrow).map((px) => this.map.unproject(L.point(px.x, px.y), zoom)));
    this.arrows.setLatLngs(strokes);
    this.arrows.getElement()?.setAttribute('data-count', String(strokes.length));
    this.arrows.getElement()?.setAttribute('data-car', String(this.track.carId));
  };
}
