/**
 * One Leaflet popup for the selected vehicle, its content rendered by React through a portal. The
 * popup follows the vehicle (imperatively, from the position store) and closing it clears the
 * selection.
 */
import L from 'leaflet';
import { useEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import type { LiveHub } from '../../../live/LiveHub';
import { toDisplay, type CoordSystem } from '../layers/coords';
import { useLeafletMap } from '../mapContext';
import type { CarRow } from '../model/types';
import type { VehicleAction } from './ActionModal';
import { VehiclePopup } from './VehiclePopup';

export interface VehiclePopupLayerProps {
  hub: LiveHub;
  coord: CoordSystem;
  selected: { deviceId: number; car: CarRow } | null;
  onClose: () => void;
  onAction: (action: VehicleAction, car: CarRow) => void;
}

export function VehiclePopupLayer({ hub, coord, selected, onClose, onAction }: VehiclePopupLayerProps) {
  const map = useLeafletMap();
  const [container] = useState(() => document.createElement('div'));
  const popupRef = useRef<L.Popup | null>(null);
  const onCloseRef = useRef(onClose);
  useEffect(() => {
    onCloseRef.current = onClose;
  });

  useEffect(() => {
    const popup = L.popup({ maxWidth: 380, minWidth: 280, autoPan: true, className: 'fw-leaflet-popup', offset: [0, -10] });
    popup.setContent(container);
    popup.on('remove', () => onCloseRef.current());
    popupRef.current = popup;
    // Escape closes the popup wherever the focus is (Leaflet only listens on a focused map).
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && popup.isOpen()) map.closePopup(popup);
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      popup.off();
      popup.remove();
      popupRef.current = null;
    };
  }, [map, container]);

  const deviceId = selected?.deviceId ?? null;
  useEffect(() => {
    const popup = popupRef.current;
    if (!popup || deviceId === null) return undefined;
    const place = (open: boolean) => {
      const p = hub.positions.get(deviceId);
      if (!p) return;
      popup.setLatLng(toDisplay(p.lng, p.lat, coord));
      if (open && !popup.isOpen()) popup.openOn(map);
    };
    place(true);
    const unsubscribe = hub.positions.subscribe((changed) => {
      if (changed.some((p) => p.deviceId === deviceId)) place(true);
    });
    return () => {
      unsubscribe();
      if (popup.isOpen()) {
        popup.off('remove');
        map.closePopup(popup);
        popup.on('remove', () => onCloseRef.current());
      }
    };
  }, [map, hub, coord, deviceId]);

  if (!selected) return null;
  return createPortal(
    <VehiclePopup
      hub={hub}
      car={selected.car}
      deviceId={selected.deviceId}
      onAction={(action) => onAction(action, selected.car)}
      onLayout={() => popupRef.current?.update()}
    />,
    container,
  );
}
