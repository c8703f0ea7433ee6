import { act, render } from '@testing-library/react';
import type L from 'leaflet';
import { useEffect } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LiveMap } from './LiveMap';
import { mapMotion, useLeafletMap } from './mapContext';
import { systemMotion } from '../../test/systemMotion';

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
