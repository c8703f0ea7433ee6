import { act, render } from '@testing-library/react';
import type L from 'leaflet';
import { useEffect } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LiveMap } from './LiveMap';
import { mapMotion, useLeafletMap } from './mapContext';

/** A matchMedia whose reduced-motion answer the test sets and changes. */
function systemMotion(reduced: boolean) {
  const listeners = new Set<() => void>();
  const state = { reduced };
  vi.stubGlobal('matchMedia', (query: string) => ({
    get matches() { return query.includes('prefers-reduced-motion') ? state.reduced : false; },
    media: query,
    onchange: null,
    addListener: () => undefined,
    removeListener: () => undefined,
    addEventListener: (_type: string, listener: () => void) => listeners.add(listener),
    removeEventListener: (_type: string, listener: () => void) => listeners.delete(listener),
    dispatchEvent: () => false,
  }));
  return (next: boolean) => {
    state.reduced = next;
    listeners.forEach((listener) => listener());
  };
}

let current: L.Map | null = null;
function Probe() {
  const map = useLeafletMap();
  useEffect(() => {
    current = map;
  }, [map]);
  return null;
}

const shown = () => render(
  <LiveMap crs="epsg3857" coord="gcj02" center={{ lng: 116.4, lat: 39.9 }} zoom={11}><Probe /></LiveMap>);

afterEach(() => {
  vi.unstubAllGlobals();
  current = null;
});

describe('the live map follows the system motion setting (WCAG 2.3.3)', () => {
  it('glides when the user has not asked for less motion', () => {
    systemMotion(false);
    shown();
    expect(current?.options).toMatchObject({ zoomAnimation: true, fadeAnimation: true, markerZoomAnimation: true,
      inertia: true });
    expect(mapMotion(current!)).toBe(true);
  });

  it('jumps when the user asked for less motion, and again follows a change while open', () => {
    const change = systemMotion(true);
    shown();
    expect(current?.options).toMatchObject({ zoomAnimation: false, fadeAnimation: false, markerZoomAnimation: false,
      inertia: false });
    expect(mapMotion(current!)).toBe(false);
    act(() => change(false));
    expect(current?.options.zoomAnimation).toBe(true);
  });
});
