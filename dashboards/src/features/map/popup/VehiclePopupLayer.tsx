/**
 * One Leaflet popup for the selected vehicle, its content rendered by React through a portal. The
 * popup follows the vehicle (imperatively, from the position store) and closing it clears the
 * selection. With `follow` on, the map pans to keep the vehicle in the middle as it moves. Selecting a
 * vehicle (`centreRequest`) zooms the map to it (at least SELECT_ZOOM), as soon as its position is known.
 * The popup is kept inside the map clear of the zoom control (top left) and the shell's settings button
 * (a fixed tab on the right edge), no wider and no taller than the map (its content scrolls), and
 * whenever its content grows (address, photo) it is moved back into full view. While the pointer is on the
 * popup it holds still (its buttons do not move under the pointer with each report, nor does follow or a fit of
 * its grown content pan the map); the vehicle's latest position, and the fit, are applied when the pointer leaves.
 */
import L from 'leaflet';
import { useEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import type { LiveHub } from '../../../live/LiveHub';
import { toDisplay, type CoordSystem } from '../layers/coords';
import { claimView, mapMotion, useLeafletMap } from '../mapContext';
import type { CarRow } from '../model/types';
import type { VehicleAction } from './ActionModal';
import {
  fitShift,
  POPUP_PADDING_BOTTOM_RIGHT,
  POPUP_PADDING_TOP_LEFT,
  popupMaxHeight,
  popupWidths,
  SELECT_ZOOM,
} from './popupPlacement';
import { relayout } from './relayout';
import { VehiclePopup } from './VehiclePopup';

export interface VehiclePopupLayerProps {
  hub: LiveHub;
  coord: CoordSystem;
  selected: { deviceId: number; car: CarRow } | null;
  onClose: () => void;
  onAction: (action: VehicleAction, car: CarRow) => void;
  /** Keep the selected vehicle in view (pan to it on every move). */
  follow: boolean;
  /** Bumped to centre the map on the selected vehicle (a click in the live table). */
  centreRequest?: number;
  /** Bumped by every pick of a vehicle: opens its popup again even when the same vehicle stays selected. */
  openRequest?: number;
}

export function VehiclePopupLayer({ hub, coord, selected, onClose, onAction, follow, centreRequest = 0, openRequest = 0 }: VehiclePopupLayerProps) {
  const map = useLeafletMap();
  const [container] = useState(() => document.createElement('div'));
  const popupRef = useRef<L.Popup | null>(null);
  const onCloseRef = useRef(onClose);
  const followRef = useRef(follow);
  // The pointer is on the popup: placing it waits (``pending``) until the pointer leaves.
  const holdRef = useRef<{ held: boolean; pending: (() => void) | null }>({ held: false, pending: null });
  useEffect(() => {
    onCloseRef.current = onClose;
    followRef.current = follow;
  });

  useEffect(() => {
    const popup = L.popup({
      ...popupWidths(map.getSize().x),
      maxHeight: popupMaxHeight(map.getSize().y),
      autoPan: true,
      autoPanPaddingTopLeft: POPUP_PADDING_TOP_LEFT,
      autoPanPaddingBottomRight: POPUP_PADDING_BOTTOM_RIGHT,
      className: 'fw-leaflet-popup',
      offset: [0, -10],
    });
    const onResize = () => {
      Object.assign(popup.options, popupWidths(map.getSize().x), { maxHeight: popupMaxHeight(map.getSize().y) });
      // A resize (sidebar, table under the map) re-lays the popup out; it must not pull the map back
      // to a vehicle the operator has panned away from.
      if (popup.isOpen()) withoutAutoPan(popup, true, () => relayout(popup));
    };
    map.on('resize', onResize);
    popup.setContent(container);
    popup.on('remove', () => onCloseRef.current());
    const hold = holdRef.current;
    const onEnter = () => {
      hold.held = true;
    };
    const onLeave = () => {
      hold.held = false;
      const pending = hold.pending;
      hold.pending = null;
      pending?.();
    };
    let holding: HTMLElement | undefined;
    // Leaflet makes the popup's element on its first opening and keeps it.
    popup.on('add', () => {
      const element = popup.getElement();
      if (!element || element === holding) return;
      holding = element;
      L.DomEvent.on(element, 'pointerenter', onEnter);
      L.DomEvent.on(element, 'pointerleave', onLeave);
    });
    // Closed, the popup is out of the page and no pointer can leave it: the hold ends with it.
    const release = (event: L.PopupEvent) => {
      if (event.popup !== popup) return;
      hold.held = false;
      hold.pending = null;
    };
    map.on('popupclose', release);
    popupRef.current = popup;
    // Escape closes the popup wherever the focus is (Leaflet only listens on a focused map).
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && popup.isOpen()) map.closePopup(popup);
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      map.off('resize', onResize);
      map.off('popupclose', release);
      if (holding) {
        L.DomEvent.off(holding, 'pointerenter', onEnter);
        L.DomEvent.off(holding, 'pointerleave', onLeave);
      }
      popup.off();
      popup.remove();
      popupRef.current = null;
    };
  }, [map, container]);

  const deviceId = selected?.deviceId ?? null;
  useEffect(() => {
    const popup = popupRef.current;
    if (!popup || deviceId === null) return undefined;
    const hold = holdRef.current;
    const place = (open: boolean) => {
      if (hold.held && popup.isOpen()) {
        hold.pending = () => place(true);
        return;
      }
      const p = hub.positions.get(deviceId);
      if (!p) return;
      const latLng = toDisplay(p.lng, p.lat, coord);
      // Leaflet auto-pans on every setLatLng of an open popup: the map would snap back to the
      // vehicle on each report. Auto-pan is for opening; following is the user's choice.
      const opened = popup.isOpen();
      withoutAutoPan(popup, opened, () => popup.setLatLng(latLng));
      if (open && !opened) popup.openOn(map);
      if (followRef.current) {
        claimView(map);
        map.panTo(latLng, { animate: mapMotion(map) });
      } else if (opened) {
        fitWhenSettled(map, popup); // a vehicle driving towards the map's edge keeps its popup in view
      }
    };
    place(true);
    const unsubscribe = hub.positions.subscribe((changed) => {
      if (changed.some((p) => p.deviceId === deviceId)) place(true);
    });
    return () => {
      unsubscribe();
      hold.pending = null;
      if (popup.isOpen()) {
        popup.off('remove');
        map.closePopup(popup);
        popup.on('remove', () => onCloseRef.current());
      }
    };
  }, [map, hub, coord, deviceId, openRequest]);

  // Turning follow on centres the selected vehicle; selecting it (tree, table) zooms to it, once its
  // position is known (a vehicle just ticked gets it from REST a moment later).
  const pendingZoom = useRef(false);
  useEffect(() => {
    if ((!follow && centreRequest === 0) || deviceId === null) return undefined;
    pendingZoom.current = centreRequest > 0;
    const show = (): boolean => {
      const p = hub.positions.get(deviceId);
      if (!p) return false;
      claimView(map);
      const latLng = toDisplay(p.lng, p.lat, coord);
      if (pendingZoom.current) map.setView(latLng, Math.max(map.getZoom(), SELECT_ZOOM), { animate: false });
      else map.panTo(latLng, { animate: mapMotion(map) });
      pendingZoom.current = false;
      const popup = popupRef.current;
      if (popup?.isOpen()) fitWhenSettled(map, popup);
      return true;
    };
    if (show()) return undefined;
    return hub.positions.subscribe((changed) => {
      if (pendingZoom.current && changed.some((p) => p.deviceId === deviceId)) show();
    });
  }, [map, hub, coord, deviceId, follow, centreRequest]);

  if (!selected) return null;
  return createPortal(
    <VehiclePopup
      hub={hub}
      car={selected.car}
      deviceId={selected.deviceId}
      onAction={(action) => onAction(action, selected.car)}
      onLayout={() => {
        const popup = popupRef.current;
        if (!popup) return;
        withoutAutoPan(popup, popup.isOpen(), () => relayout(popup));
        if (!popup.isOpen()) return;
        // grown under the pointer, it is fitted into view when the pointer leaves (the map holds still too)
        const hold = holdRef.current;
        if (hold.held) hold.pending ??= () => fitWhenSettled(map, popup);
        else fitWhenSettled(map, popup);
      }}
    />,
    container,
  );
}

/**
 * Pans the map so the whole popup shows: Leaflet's auto-pan measured it when it opened, before React
 * filled it (address, photo), so a grown popup stood cut off at the top of a short map.
 */
function fitInView(map: L.Map, popup: L.Popup): void {
  const element = popup.getElement();
  const anchor = popup.getLatLng();
  // A vehicle the operator has panned out of view stays there: only a visible vehicle's popup is fitted.
  if (!element || !anchor || !map.getBounds().contains(anchor)) return;
  const [dx, dy] = fitShift(element.getBoundingClientRect(), map.getContainer().getBoundingClientRect());
  if (dx !== 0 || dy !== 0) map.panBy([-dx, -dy], { animate: false });
}

/**
 * ``fitInView`` now, or when the map's running pan / zoom animation ends: measured mid-animation, the
 * popup's shift would be undone by the animation's own end (the popup then stood cut off).
 */
function fitWhenSettled(map: L.Map, popup: L.Popup): void {
  const animating = map as unknown as { _panAnim?: { _inProgress?: boolean }; _animatingZoom?: boolean };
  if (animating._panAnim?._inProgress || animating._animatingZoom) {
    map.once('moveend', () => {
      if (popup.isOpen()) fitInView(map, popup);
    });
  } else {
    fitInView(map, popup);
  }
}

/**
 * Runs `change` on an open popup without Leaflet's auto-pan (which pans on every update): the map
 * only moves to the vehicle when the popup opens, or when the user follows it.
 */
function withoutAutoPan(popup: L.Popup, skip: boolean, change: () => void): void {
  if (!skip) {
    change();
    return;
  }
  popup.options.autoPan = false;
  try {
    change();
  } finally {
    popup.options.autoPan = true;
  }
}
