// @vitest-environment jsdom
import L from 'leaflet';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LivePosition } from '../../../live/types';
import { setLeaderLine } from './leaderLine';
import { createVehicleElement, updateVehicleElement } from './vehicleIcon';
import { HOLD_MAX_MS, VehicleMarkerLayer } from './VehicleMarkerLayer';

function pos(deviceId: number, lng: number, lat: number, t = 1, extra: Partial<LivePosition> = {}): LivePosition {
  return {
    deviceId,
    carId: deviceId,
    lng,
    lat,
    direction: 45,
    speed: 30,
    time: new Date(t * 1000).toISOString(),
    timeMs: t * 1000,
    bizState: 1,
    acc: 1,
    alarm: 0,
    ...extra,
  };
}

describe('vehicle marker element', () => {
  it('carries the test id, position, heading and state colour', () => {
    const el = createVehicleElement(7, '京A·00007');
    updateVehicleElement(el, { lng: 116.4, lat: 39.9, direction: 370, bizState: 3 });
    expect(el.dataset.testid).toBe('marker-7');
    expect(el.dataset.deviceId).toBe('7');
    expect(el.dataset.lng).toBe('116.4');
    expect(el.dataset.lat).toBe('39.9');
    expect((el.firstElementChild as SVGElement).style.transform).toBe('rotate(10deg)');
    expect(el.style.color).toBe('rgb(245, 34, 45)');
    expect(el.textContent).toBe('京A·00007');
  });

  it('turns the arrow, not the leader line, of a marker shifted off an overlapping one', () => {
    const el = createVehicleElement(7, '京A·00007');
    updateVehicleElement(el, { lng: 116.4, lat: 39.9, direction: 10, bizState: 1 });
    setLeaderLine(el, 20, 0);
    const line = el.querySelector<HTMLElement>('[data-testid=leader-line]')!;
    const lineTransform = line.style.transform;
    updateVehicleElement(el, { lng: 116.4, lat: 39.9, direction: 90, bizState: 1 });
    expect(el.querySelector<SVGElement>('svg')!.style.transform).toBe('rotate(90deg)');
    expect(line.style.transform).toBe(lineTransform);
  });
});

describe('VehicleMarkerLayer', () => {
  let container: HTMLDivElement;
  let map: L.Map;
  let layer: VehicleMarkerLayer;
  const onSelect = vi.fn();

  beforeEach(() => {
    vi.useFakeTimers();
    container = document.createElement('div');
    document.body.appendChild(container);
    map = L.map(container, { center: [39.9, 116.4], zoom: 11, maxZoom: 18, minZoom: 3 });
    layer = new VehicleMarkerLayer(map, { clustering: true, coord: 'wgs84', onSelect });
  });

  afterEach(() => {
    layer.destroy();
    map.remove();
    container.remove();
    vi.useRealTimers();
  });

  it('shows ticked vehicles that have a position and reports the others', () => {
    const known = new Map([[1, pos(1, 116.4, 39.9)]]);
    const missing = layer.show(
      [
        { deviceId: 1, plate: 'A' },
        { deviceId: 2, plate: 'B' },
      ],
      (id) => known.get(id),
    );
    expect(missing).toEqual([2]);
    expect(layer.latLngOf(1)?.lng).toBeCloseTo(116.4);
    expect(layer.latLngOf(2)).toBeNull();
  });

  it('holds a marker still while the pointer is on it and moves it to its last report when the pointer leaves', () => {
    layer.setClustering(false);
    layer.show([{ deviceId: 1, plate: 'A' }, { deviceId: 2, plate: 'B' }], (id) => pos(id, 116.4 + id / 100, 39.9));
    const held = (layer as unknown as { entries: Map<number, { marker: L.Marker }> }).entries.get(1)!.marker;
    held.fire('mouseover');
    layer.update([pos(1, 116.45, 39.95, 2), pos(2, 116.3, 39.8, 2)]);
    layer.update([pos(1, 116.46, 39.96, 3)]);
    expect(layer.latLngOf(1)?.lng).toBeCloseTo(116.41); // under the pointer: where it was pressed
    expect(layer.latLngOf(2)?.lng).toBeCloseTo(116.3); // the others move
    held.fire('mouseout');
    expect(layer.latLngOf(1)?.lng).toBeCloseTo(116.46); // then to its last report
    expect(layer.latLngOf(1)?.lat).toBeCloseTo(39.96);
    layer.update([pos(1, 116.47, 39.97, 4)]);
    expect(layer.latLngOf(1)?.lng).toBeCloseTo(116.47); // and moves again with every report
    // a pointer that never leaves (a tap on a touch screen) holds it at most HOLD_MAX_MS
    held.fire('mouseover');
    layer.update([pos(1, 116.48, 39.98, 5)]);
    expect(layer.latLngOf(1)?.lng).toBeCloseTo(116.47);
    vi.advanceTimersByTime(HOLD_MAX_MS);
    expect(layer.latLngOf(1)?.lng).toBeCloseTo(116.48);
    layer.update([pos(1, 116.49, 39.99, 6)]);
    expect(layer.latLngOf(1)?.lng).toBeCloseTo(116.49);
  });

  it("keeps a held marker drawn where it is and held while another marker is re-binned", () => {
    // markercluster takes the other marker of a group of two off the map and puts it back while one is re-filed:
    // the marker under the pointer must come back drawn where it was (not where the cluster tree filed it) and
    // still held, or the release of a click lands beside it.
    Object.defineProperty(container, 'clientWidth', { configurable: true, value: 1000 });
    Object.defineProperty(container, 'clientHeight', { configurable: true, value: 800 });
    map.invalidateSize();
    layer.setClustering(false);
    map.setView([39.9, 116.4], 16, { animate: false });
    layer.show([{ deviceId: 1, plate: 'A' }, { deviceId: 2, plate: 'B' }], (id) => pos(id, 116.4 + id / 1000, 39.9));
    const entries = (layer as unknown as { entries: Map<number, { marker: L.Marker; element: HTMLElement }> }).entries;
    const held = entries.get(1)!.marker as L.Marker & { _icon: HTMLElement & { _leaflet_pos: L.Point } };
    const drawn = () => held._icon._leaflet_pos;
    // a move smaller than the re-bin drift: drawn there, filed in the tree where it was
    layer.update([pos(1, 116.4015, 39.9005, 2)]);
    const before = drawn();
    expect(before.equals(map.latLngToLayerPoint([39.9005, 116.4015]).round())).toBe(true);
    held.fire('mouseover');
    layer.update([pos(2, 116.41, 39.91, 3)]); // far: marker 2 is re-binned
    expect(entries.get(1)!.element.isConnected).toBe(true);
    expect(drawn().equals(before)).toBe(true);
    layer.update([pos(1, 116.403, 39.902, 4)]);
    expect(drawn().equals(before)).toBe(true); // still held
    held.fire('mouseout');
    expect(drawn().equals(map.latLngToLayerPoint([39.902, 116.403]).round())).toBe(true);
  });

  it('moves markers from a batch and adds a ticked vehicle on its first fix', () => {
    layer.show(
      [
        { deviceId: 1, plate: 'A' },
        { deviceId: 2, plate: 'B' },
      ],
      (id) => (id === 1 ? pos(1, 116.4, 39.9) : undefined),
    );
    layer.update([pos(1, 116.5, 39.95, 2), pos(2, 116.3, 39.8, 2), pos(3, 1, 1, 2)]);
    expect(layer.latLngOf(1)?.lng).toBeCloseTo(116.5);
    expect(layer.latLngOf(2)?.lat).toBeCloseTo(39.8);
    expect(layer.latLngOf(3)).toBeNull(); // not ticked
  });

  it('removes unticked vehicles and keeps markers across a clustering switch', () => {
    const at = (id: number) => pos(id, 116 + id / 10, 39.9);
    layer.show(
      [
        { deviceId: 1, plate: 'A' },
        { deviceId: 2, plate: 'B' },
      ],
      at,
    );
    layer.setClustering(false);
    expect(layer.latLngOf(2)).not.toBeNull();
    layer.show([{ deviceId: 2, plate: 'B' }], at);
    expect(layer.latLngOf(1)).toBeNull();
    expect(layer.latLngOf(2)).not.toBeNull();
  });

  it('draws markers shifted to GCJ-02 when the base layer needs it', () => {
    layer.show([{ deviceId: 1, plate: 'A' }], () => pos(1, 116.39, 39.91));
    layer.setCoordSystem('gcj02');
    expect(layer.latLngOf(1)!.lng - 116.39).toBeGreaterThan(0.004);
  });

  it('keeps the cluster tree consistent through small and large moves', () => {
    const vehicles = [
      { deviceId: 1, plate: 'A' },
      { deviceId: 2, plate: 'B' },
    ];
    layer.show(vehicles, (id) => pos(id, 116.4 + id / 100, 39.9));
    expect(layer.markerCount()).toBe(2);
    // 1: a few metres (the tree keeps the old spot); 2: kilometres (re-binned at once)
    layer.update([pos(1, 116.41001, 39.90001, 2), pos(2, 116.6, 40.1, 2)]);
    expect(layer.latLngOf(1)?.lng).toBeCloseTo(116.41001, 5);
    expect(layer.latLngOf(2)?.lat).toBeCloseTo(40.1);
    expect(layer.markerCount()).toBe(2);
    // Removal must find both in the tree, wherever they are now.
    layer.show([], () => undefined);
    expect(layer.markerCount()).toBe(0);
  });

  it('survives clusters dissolving around markers that moved without a re-bin (zoomed in, under load)', () => {
    // A seeded random walk of ticks, unticks and small and large moves, zoomed in where clusters of two
    // form and dissolve: markercluster re-files a dissolving cluster's other marker at getLatLng(), so a
    // marker that moved without a re-bin must still answer with the position the tree has.
    map.setView([39.9, 116.4], 16, { animate: false });
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const positions = new Map<number, LivePosition>();
    for (let id = 1; id <= 40; id += 1) positions.set(id, pos(id, 116.4 + random() * 0.004, 39.9 + random() * 0.004));
    let ticked = new Set(positions.keys());
    const shown = () => Array.from(ticked, (deviceId) => ({ deviceId, plate: `P${deviceId}` }));
    layer.show(shown(), (id) => positions.get(id));
    for (let round = 2; round < 300; round += 1) {
      const batch: LivePosition[] = [];
      for (const [id, p] of positions) {
        if (random() < 0.5) continue;
        const step = random() < 0.05 ? 0.003 : 0.00004;
        const next = pos(id, p.lng + (random() - 0.5) * step, p.lat + (random() - 0.5) * step, round);
        positions.set(id, next);
        batch.push(next);
      }
      expect(() => layer.update(batch)).not.toThrow();
      if (round % 7 === 0) {
        ticked = new Set(Array.from(positions.keys()).filter(() => random() < 0.8));
        expect(() => layer.show(shown(), (id) => positions.get(id))).not.toThrow();
      }
      vi.advanceTimersByTime(50);
    }
    expect(layer.markerCount()).toBe(ticked.size);
    expect(() => layer.show([], () => undefined)).not.toThrow();
    expect(layer.markerCount()).toBe(0);
  });
});

