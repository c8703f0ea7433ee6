/**
 * The vehicle marker's DOM: one persistent element per vehicle (Leaflet re-wraps it whenever the
 * cluster group re-adds the marker), an SVG arrow rotated by the heading and coloured by the business
 * state, and the plate. Moves only touch attributes and styles of this element.
 */
import L from 'leaflet';
import { stateColour } from '../../../live/bizState';

const SVG_NS = 'http://www.w3.org/2000/svg';
export const ICON_SIZE = 28;

export interface VehicleLook {
  lng: number;
  lat: number;
  direction: number;
  bizState: number;
}

export function createVehicleElement(deviceId: number, plate: string): HTMLElement {
  const root = document.createElement('div');
  root.className = 'fw-vehicle';
  root.dataset.testid = `marker-${deviceId}`;
  root.dataset.deviceId = String(deviceId);
  root.title = plate;
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('class', 'fw-vehicle-arrow');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('width', String(ICON_SIZE));
  svg.setAttribute('height', String(ICON_SIZE));
  const path = document.createElementNS(SVG_NS, 'path');
  path.setAttribute('d', 'M12 2 L19.5 20.5 L12 16.5 L4.5 20.5 Z');
  path.setAttribute('fill', 'currentColor');
  path.setAttribute('stroke', '#ffffff');
  path.setAttribute('stroke-width', '1.6');
  path.setAttribute('stroke-linejoin', 'round');
  svg.appendChild(path);
  const label = document.createElement('span');
  label.className = 'fw-vehicle-label';
  label.textContent = plate;
  root.append(svg, label);
  return root;
}

/** Writes position, heading and state; cheap enough for thousands of calls per second. */
export function updateVehicleElement(root: HTMLElement, look: VehicleLook): void {
  const data = root.dataset;
  // Unchanged values are not rewritten: no style recalculation, no mutation records.
  const lng = String(look.lng);
  const lat = String(look.lat);
  if (data.lng !== lng) data.lng = lng;
  if (data.lat !== lat) data.lat = lat;
  const direction = String(Math.round(look.direction) % 360);
  if (data.direction !== direction) {
    data.direction = direction;
    // the arrow, not a leader line (leaderLine.ts puts its line first, beneath the arrow)
    const svg = root.querySelector<SVGElement>(':scope > svg');
    if (svg) svg.style.transform = `rotate(${direction}deg)`;
  }
  const state = String(look.bizState);
  if (data.state !== state) {
    data.state = state;
    root.style.color = stateColour(look.bizState);
  }
}

export function vehicleIcon(element: HTMLElement): L.DivIcon {
  return L.divIcon({
    html: element,
    className: 'fw-vehicle-icon',
    iconSize: [ICON_SIZE, ICON_SIZE],
    iconAnchor: [ICON_SIZE / 2, ICON_SIZE / 2],
    popupAnchor: [0, -ICON_SIZE / 2],
  });
}

