/**
 * All vehicle markers, in one leaflet.markercluster group, driven imperatively (no React): `show`
 * sets which vehicles are ticked, `update` applies a coalesced batch of positions.
 *
 * Moving a marker through markercluster (setLatLng, or remove + add) re-bins it in the cluster tree
 * of every zoom level and redraws the affected clusters: about a millisecond per marker, far too
 * slow for 2,000 moves a second. So a move only updates the marker's own position (and its icon
 * when it is on screen); the marker is re-binned in the tree once it has drifted more than
 * REBIN_DRIFT_PX from where the tree has it at the current zoom (a cluster is then at most that
 * far off), or SCATTERED_DRIFT_PX while nothing clusters at this zoom. Re-binning goes in batches
 * of at most REBIN_BUDGET markers per flush or idle tick, so no frame pays for more. Zooming
 * re-checks the drift at the new zoom. Every cluster-group mutation runs with all markers answering
 * the position the tree has them at (withTreePositions), since markercluster reads positions while
 * it restructures.
 *
 * A marker under the pointer holds still (as the popup under it does, features/map/popup/VehiclePopupLayer.tsx): a live
 * vehicle at the closest zoom crosses up to 100 px a report, and a marker that moved between the press and
 * the release of a click was not clicked (the click went to the map). Its reports are kept and the last one
 * applied when the pointer leaves it, or after HOLD_MAX_MS (a tap on a touch screen leaves the pointer "on" the
 * marker until the next tap); the overlap spreading waits too, as it may shift the marker.
 */
import L from 'leaflet';
import 'leaflet.markercluster';
import type { LivePosition } from '../../../live/types';
import { FIT_PADDING_PX, MAX_ZOOM } from '../model/constants';
import { clusterGroupOptions, isClustered } from './clustering';
import { toDisplay, type CoordSystem } from './coords';
import { spreadVisible } from './spread';
import { createVehicleElement, updateVehicleElement, vehicleIcon } from './vehicleIcon';

export interface Entry {
  marker: L.Marker;
  element: HTMLElement;
  position: LivePosition;
  /** Where the cluster tree has the marker (its position when last added to the group). */
  treeLatLng: L.LatLng;
  /** The element still shows an older position: refreshed when the marker comes on screen. */
  stale: boolean;
  /** The pointer is on the marker: moves wait until it leaves. */
  held: boolean;
  /** A report came while held: the marker is not at `position` yet. */
  behind: boolean;
  /** Ends the hold after HOLD_MAX_MS. */
  holdTimer: ReturnType<typeof setTimeout> | null;
}

export interface ShownVehicle {
  deviceId: number;
  plate: string;
}

export interface VehicleMarkerLayerOptions {
  clustering: boolean;
  coord: CoordSystem;
  onSelect: (deviceId: number) => void;
}

const SPREAD_DEBOUNCE_MS = 150;
const REBIN_DRIFT_PX = 12;
const REBIN_BUDGET = 150;
const REBIN_TICK_MS = 40;
const SCATTERED_DRIFT_PX = 256;
const VIEW_PADDING = 0.3;
/** The longest a marker holds still under the pointer: long enough for a click, short of hiding a journey. */
export const HOLD_MAX_MS = 3_000;

// Leaflet internals the fast path uses: the position field, the map (set while on screen), update().
type Internal = L.Marker & { _latlng: L.LatLng; _map?: L.Map | null; update(): L.Marker };

export class VehicleMarkerLayer {
  private group: L.MarkerClusterGroup;
  private readonly entries = new Map<number, Entry>();
  private wanted = new Map<number, string>();
  private spreadTimer: ReturnType<typeof setTimeout> | null = null;
  /** Markers waiting to be re-binned, oldest first. */
  private readonly drifted = new Set<Entry>();
  private rebinTimer: ReturnType<typeof setTimeout> | null = null;
  /** Set while a cluster-group mutation runs (withTreePositions): the markers it put on the map. */
  private readded: Set<Entry> | null = null;
  /** Set while a cluster-group mutation runs: the ticked vehicles' markers it took off the map. */
  private taken: Set<Entry> | null = null;
  private readonly onViewChange = () => this.scheduleSpread();
  private readonly onZoomEnd = () => {
    const zoom = this.map.getZoom();
    const threshold = this.threshold(zoom);
    for (const entry of this.entries.values()) if (this.drift(entry, zoom) > threshold) this.drifted.add(entry);
    this.drainDrifted();
  };

  constructor(
    private readonly map: L.Map,
    private readonly options: VehicleMarkerLayerOptions,
  ) {
    this.group = this.createGroup(options.clustering);
    map.on('moveend zoomend', this.onViewChange);
    map.on('zoomend', this.onZoomEnd);
  }

  /**
   * Shows exactly `vehicles` (those with a position in `positionOf`); returns the device ids that
   * have none, which cannot be drawn (console-spec §5 "map display").
   */
  show(vehicles: readonly ShownVehicle[], positionOf: (deviceId: number) => LivePosition | undefined): number[] {
    this.wanted = new Map(vehicles.map((v) => [v.deviceId, v.plate]));
    const removed: Entry[] = [];
    for (const [deviceId, entry] of this.entries) {
      if (!this.wanted.has(deviceId)) {
        removed.push(entry);
        this.entries.delete(deviceId);
        this.drifted.delete(entry);
      }
    }
    if (removed.length) this.withTreePositions(() => this.group.removeLayers(removed.map((e) => e.marker)), removed);
    const added: L.Marker[] = [];
    const missing: number[] = [];
    for (const { deviceId, plate } of vehicles) {
      if (this.entries.has(deviceId)) continue;
      const position = positionOf(deviceId);
      if (!position) {
        missing.push(deviceId);
        continue;
      }
      added.push(this.createEntry(deviceId, plate, position).marker);
    }
    if (added.length) this.withTreePositions(() => this.group.addLayers(added));
    this.scheduleSpread();
    return missing;
  }

  /** Applies a coalesced batch: new markers for ticked vehicles' first fix, moves for the others. */
  update(changed: readonly LivePosition[]): void {
    const added: L.Marker[] = [];
    const zoom = this.map.getZoom();
    const threshold = this.threshold(zoom);
    for (const position of changed) {
      const plate = this.wanted.get(position.deviceId);
      if (plate === undefined) continue;
      const entry = this.entries.get(position.deviceId);
      if (!entry) {
        added.push(this.createEntry(position.deviceId, plate, position).marker);
        continue;
      }
      const previous = entry.position;
      entry.position = position;
      if (entry.held) {
        entry.behind = true;
        continue;
      }
      this.applyReport(entry, previous.lng !== position.lng || previous.lat !== position.lat, zoom, threshold);
    }
    this.drainDrifted();
    if (added.length) this.withTreePositions(() => this.group.addLayers(added));
    if (changed.length) this.scheduleSpread();
  }

  /** The pointer left a held marker: it goes where its last report says. */
  private release(entry: Entry): void {
    if (entry.holdTimer) clearTimeout(entry.holdTimer);
    entry.holdTimer = null;
    entry.held = false;
    // an unticked vehicle's marker is released as it is removed: it stays removed
    if (!entry.behind || this.entries.get(entry.position.deviceId) !== entry) return;
    entry.behind = false;
    const zoom = this.map.getZoom();
    this.applyReport(entry, true, zoom, this.threshold(zoom));
    this.drainDrifted();
    this.scheduleSpread();
  }

  /** Shows an entry's last report: its element and, when `moved`, its place (re-binned once it drifted). Only
   * markers on screen (as themselves) touch the DOM; the others catch up when shown. */
  private applyReport(entry: Entry, moved: boolean, zoom: number, threshold: number): void {
    const marker = entry.marker as Internal;
    if (marker._map) updateVehicleElement(entry.element, entry.position);
    else entry.stale = true;
    if (!moved) return;
    marker._latlng = L.latLng(this.displayLatLng(entry.position));
    if (marker._map) marker.update();
    if (this.drift(entry, zoom) > threshold) this.drifted.add(entry);
  }

  setCoordSystem(coord: CoordSystem): void {
    if (coord === this.options.coord) return;
    this.options.coord = coord;
    const all = Array.from(this.entries.values());
    for (const entry of all) (entry.marker as Internal)._latlng = L.latLng(this.displayLatLng(entry.position));
    this.drifted.clear();
    this.rebin(all);
    this.scheduleSpread();
  }

  setClustering(on: boolean): void {
    if (on === this.options.clustering) return;
    this.options.clustering = on;
    this.map.removeLayer(this.group);
    this.group = this.createGroup(on);
    const all = Array.from(this.entries.values());
    for (const entry of all) entry.treeLatLng = entry.marker.getLatLng();
    this.drifted.clear();
    this.group.addLayers(all.map((e) => e.marker));
    this.scheduleSpread();
  }

  /** Markers in the cluster group (shown or inside a cluster). */
  markerCount(): number {
    return this.group.getLayers().length;
  }

  latLngOf(deviceId: number): L.LatLng | null {
    const entry = this.entries.get(deviceId);
    return entry ? entry.marker.getLatLng() : null;
  }

  /** Fits the map to these vehicles (all shown ones by default), 200 px padding, zoom at most 18. */
  fit(deviceIds?: readonly number[]): boolean {
    const points: L.LatLng[] = [];
    for (const id of deviceIds ?? this.entries.keys()) {
      const entry = this.entries.get(id);
      if (entry) points.push(entry.marker.getLatLng());
    }
    if (points.length === 0) return false;
    const size = this.map.getSize();
    const padding = Math.max(0, Math.min(FIT_PADDING_PX, Math.floor(Math.min(size.x, size.y) / 4)));
    this.map.fitBounds(L.latLngBounds(points), { padding: [padding, padding], maxZoom: MAX_ZOOM });
    return true;
  }

  destroy(): void {
    if (this.spreadTimer) clearTimeout(this.spreadTimer);
    if (this.rebinTimer) clearTimeout(this.rebinTimer);
    this.drifted.clear();
    this.map.off('moveend zoomend', this.onViewChange);
    this.map.off('zoomend', this.onZoomEnd);
    this.map.removeLayer(this.group);
    this.entries.clear();
  }

  /** Pixels between where the marker is and where the cluster tree has it, at `zoom`. */
  private drift(entry: Entry, zoom: number): number {
    return this.map.project(entry.marker.getLatLng(), zoom).distanceTo(this.map.project(entry.treeLatLng, zoom));
  }

  private threshold(zoom: number): number {
    return isClustered(zoom, this.options.clustering) ? REBIN_DRIFT_PX : SCATTERED_DRIFT_PX;
  }

  /** Re-bins up to REBIN_BUDGET drifted markers now and schedules the rest. */
  private drainDrifted(): void {
    if (this.rebinTimer) {
      clearTimeout(this.rebinTimer);
      this.rebinTimer = null;
    }
    if (this.drifted.size === 0) return;
    const batch: Entry[] = [];
    for (const entry of this.drifted) {
      if (entry.held) continue; // re-filed when the pointer leaves it (release)
      this.drifted.delete(entry);
      batch.push(entry);
      if (batch.length >= REBIN_BUDGET) break;
    }
    if (batch.length) this.rebin(batch);
    let waiting = false;
    for (const entry of this.drifted) {
      if (!entry.held) {
        waiting = true;
        break;
      }
    }
    if (waiting) this.rebinTimer = setTimeout(() => this.drainDrifted(), REBIN_TICK_MS);
  }

  /** Re-bins markers at their current positions: one removeLayers/addLayers pair for the batch. */
  private rebin(entries: readonly Entry[]): void {
    const markers = entries.map((e) => e.marker);
    this.withTreePositions(() => this.group.removeLayers(markers));
    for (const entry of entries) entry.treeLatLng = entry.marker.getLatLng();
    this.withTreePositions(() => this.group.addLayers(markers));
  }

  /**
   * Runs a cluster-group mutation while every marker (and `extra`, already dropped from `entries`)
   * answers with the position the cluster tree has it at. markercluster reads positions while it
   * restructures: it finds a marker's grid cell from its position, and a dissolving cluster re-files
   * its other marker at getLatLng(). A marker moved since it was filed would be filed, or looked for,
   * in the wrong cell, and the tree then throws in DistanceGrid on a later add.
   */
  private withTreePositions(mutate: () => void, extra: readonly Entry[] = []): void {
    const moved: [Internal, L.LatLng][] = [];
    const file = (entry: Entry) => {
      const marker = entry.marker as Internal;
      if (marker._latlng === entry.treeLatLng) return;
      moved.push([marker, marker._latlng]);
      marker._latlng = entry.treeLatLng;
    };
    this.entries.forEach(file);
    extra.forEach(file);
    const readded = (this.readded = new Set<Entry>());
    const taken = (this.taken = new Set<Entry>());
    try {
      mutate();
    } finally {
      this.readded = this.taken = null;
      for (const [marker, latLng] of moved) marker._latlng = latLng;
      // a marker put (back) on the map during the mutation was drawn at its tree position: draw it where it is
      for (const entry of readded) {
        const marker = entry.marker as Internal;
        if (marker._map && marker._latlng !== entry.treeLatLng) marker.update();
      }
      // one taken off and not put back (culled outside the view) is no longer under the pointer
      for (const entry of taken) if (!(entry.marker as Internal)._map) this.release(entry);
    }
  }

  private createGroup(clustering: boolean): L.MarkerClusterGroup {
    const group = L.markerClusterGroup(clusterGroupOptions(clustering));
    // markercluster keeps everything within one screen around the view in the DOM (9 screens of
    // markers); a third of a screen is plenty for panning and keeps the DOM, and frames, small.
    const internal = group as unknown as {
      _getExpandedVisibleBounds: () => L.LatLngBounds;
      _checkBoundsMaxLat: (bounds: L.LatLngBounds) => L.LatLngBounds;
    };
    internal._getExpandedVisibleBounds = () => internal._checkBoundsMaxLat(this.map.getBounds().pad(VIEW_PADDING));
    group.on('animationend', this.onViewChange);
    group.addTo(this.map);
    return group;
  }

  private createEntry(deviceId: number, plate: string, position: LivePosition): Entry {
    const element = createVehicleElement(deviceId, plate);
    updateVehicleElement(element, position);
    const latLng = L.latLng(this.displayLatLng(position));
    const marker = L.marker(latLng, { icon: vehicleIcon(element), keyboard: false });
    const entry: Entry = { marker, element, position, treeLatLng: latLng, stale: false, held: false, behind: false, holdTimer: null };
    marker.on('click', () => this.options.onSelect(deviceId));
    marker.on('mouseover', () => {
      if (entry.held) return;
      entry.held = true;
      entry.holdTimer = setTimeout(() => this.release(entry), HOLD_MAX_MS);
    });
    marker.on('mouseout', () => this.release(entry));
    marker.on('remove', () => {
      // markercluster takes a ticked vehicle's marker off the map and puts it back while it re-files another
      // one (a group of two): the pointer is still on it. Unticked (dropped from entries), or left off the map
      // after the mutation (culled outside the view), it is released.
      if (this.taken && this.entries.get(deviceId) === entry) this.taken.add(entry);
      else this.release(entry);
    });
    marker.on('add', () => {
      this.readded?.add(entry);
      if (!entry.stale) return;
      entry.stale = false;
      updateVehicleElement(element, entry.position);
    });
    this.entries.set(deviceId, entry);
    return entry;
  }

  private displayLatLng(position: LivePosition): L.LatLngTuple {
    return toDisplay(position.lng, position.lat, this.options.coord);
  }

  private scheduleSpread(): void {
    if (this.spreadTimer) return;
    this.spreadTimer = setTimeout(() => {
      this.spreadTimer = null;
      for (const entry of this.entries.values()) if (entry.held) return; // spread again when released
      spreadVisible(this.map, this.group, this.entries.values());
    }, SPREAD_DEBOUNCE_MS);
  }
}
