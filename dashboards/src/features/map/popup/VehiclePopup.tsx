/**
 * The vehicle popup (console-spec §2): plate and plate colour, card number, VIN, driver or
 * "unrecognised", online + business state + ACC, time, speed, mileage, alarm text, address, the latest photo,
 * and the buttons (video, photo and intercom only with that ability; each only with its permission,
 * which the server enforces anyway). Live fields follow the
 * position store; mileage and the alarm word come from the REST last position read on opening.
 */
import { Button, Space, Tag } from 'antd';
import { useEffect, useLayoutEffect, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useAccess } from '../../../auth/access';
import { carDetailUrl } from '../../carDetail/routing';
import { stateColour } from '../../../live/bizState';
import type { LiveHub } from '../../../live/LiveHub';
import { fromRest } from '../../../live/positionStore';
import { isVehicleOnline, shownBizState } from '../../../live/vehicleStates';
import { useNow } from '../hooks/useNow';
import { fetchLastPosition } from '../model/api';
import type { CarRow } from '../model/types';
import { LatestPhoto } from '../../media/LatestPhoto';
import type { VehicleAction } from './ActionModal';
import { alarmBitNames, formatAge, formatCoordinate, formatNumber, formatTime } from './format';
import { useAddress } from './useAddress';
import { useDevicePosition, useDeviceState } from './usePosition';
import { useDriver } from '../../driver/driverCache';

export interface VehiclePopupProps {
  hub: LiveHub;
  car: CarRow;
  deviceId: number;
  onAction: (action: VehicleAction) => void;
  /** Called after each render so the Leaflet popup can re-measure itself. */
  onLayout: () => void;
}

/** The buttons, the vehicle ability each needs, and the permission (code, action) that shows it. */
const ACTIONS: { action: VehicleAction; ability?: keyof CarRow; permission: [string, string] }[] = [
  { action: 'video', ability: 'hasVideo', permission: ['monitor', 'video'] },
  { action: 'photo', ability: 'hasPhoto', permission: ['monitor', 'cmd'] },
  { action: 'intercom', ability: 'hasMicrophone', permission: ['monitor', 'cmd'] },
  { action: 'listen', permission: ['monitor', 'cmd'] },
  { action: 'tts', permission: ['monitor', 'cmd'] },
  { action: 'text', permission: ['monitor', 'cmd'] },
  { action: 'alarmSetting', permission: ['monitor', 'cmd'] },
  { action: 'details', permission: ['car', 'get'] },
];

export function VehiclePopup({ hub, car, deviceId, onAction, onLayout }: VehiclePopupProps) {
  const { t } = useTranslation('map');
  const access = useAccess();
  const navigate = useNavigate();
  const position = useDevicePosition(hub, deviceId);
  const state = useDeviceState(hub, deviceId);
  const address = useAddress(position?.lng, position?.lat);

  // The REST last position adds mileage, fuel and altitude to what the socket pushes.
  useEffect(() => {
    const controller = new AbortController();
    void fetchLastPosition(deviceId, controller.signal).then((row) => {
      if (row && typeof row.lng === 'number') {
        hub.ingest([fromRest({ ...row, deviceId }, hub.states.get(deviceId)?.bizState ?? 4)]);
      }
    });
    return () => controller.abort();
  }, [hub, deviceId]);

  useLayoutEffect(() => onLayout());
  const now = useNow(10000);
  // The driver by id through the session's driver cache (platform-spec §3): the record, newer than the tree's row.
  // Only a user who may read drivers (driver:get guards the call) asks; the others see the tree row's name.
  const driver = useDriver(access.can('driver', 'get') ? car.driverId : null);

  // The one online rule; an offline vehicle shows 离线 only (no business state, no ACC of old).
  const online = isVehicleOnline(state);
  const bizState = shownBizState(state);
  const unit = (key: string, value: number | null | undefined) => {
    const text = formatNumber(value);
    return text === null ? '-' : t(`units.${key}`, { value: text });
  };
  const alarms = alarmBitNames(position?.alarm, t);
  const plateColour =
    car.plateColor != null && car.plateColor >= 1 && car.plateColor <= 8
      ? t(`plateColor.${car.plateColor}`)
      : t('plateColor.unknown');

  const rows: [string, string, ReactNode][] = [
    ['plateColor', t('popup.plateColor'), plateColour],
    ['cardNumber', t('popup.cardNumber'), car.masterDevicePhone || car.masterDeviceSn || '-'],
    ['vin', t('popup.vin'), car.vin || '-'],
    ['driver', t('popup.driver'), driver?.name || car.driverName || t('popup.unrecognised')],
    [
      'state',
      t('popup.state'),
      <Space size={4} wrap key="state" data-testid="popup-state">
        <Tag color={online ? 'success' : 'default'} data-testid="popup-online" data-online={online ? 1 : 0}>
          {t(online ? 'online.yes' : 'online.no')}
        </Tag>
        {online && (
          <Tag color={stateColour(bizState)} data-testid="popup-bizState" data-state={bizState}>
            {t(`bizState.${bizState}`)}
          </Tag>
        )}
        {online && (
          <Tag data-testid="popup-acc" data-acc={position?.acc ? 1 : 0}>
            {t(position?.acc ? 'acc.on' : 'acc.off')}
          </Tag>
        )}
      </Space>,
    ],
    ['time', t('popup.time'), formatTime(position?.time)],
    ['age', t('popup.age'), formatAge(position?.timeMs, now, t)],
    ['speed', t('popup.speed'), unit('kmh', position?.speed)],
    ['mileage', t('popup.mileage'), unit('km', position?.mileage)],
    ['alarm', t('popup.alarm'), alarms.length ? alarms.join(',') : t('popup.noAlarm')],
    ['address', t('popup.address'), address ?? (position ? formatCoordinate(position.lng, position.lat) : '-')],
    ['photo', t('popup.photo'), <LatestPhoto key="photo" hub={hub} deviceId={deviceId} onLoad={onLayout} />],
  ];

  return (
    <div className="fw-vehicle-popup" data-testid="vehicle-popup" data-device-id={deviceId}>
      <div className="fw-popup-title">
        <span data-testid="popup-plateNumber">{car.plateNumber}</span>
      </div>
      {rows.map(([field, label, value]) => (
        <div className="fw-popup-row" key={field}>
          <span className="fw-popup-label">{label}</span>
          <span className="fw-popup-value" data-testid={field === 'state' ? undefined : `popup-${field}`}>
            {value}
          </span>
        </div>
      ))}
      <div className="fw-popup-actions">
        {ACTIONS.filter(
          ({ ability, permission }) => (!ability || Number(car[ability]) > 0) && access.can(...permission),
        ).map(({ action }) => (
          <Button key={action} size="small" data-testid={`popup-btn-${action}`} onClick={() => (action === 'details' ? void navigate(carDetailUrl(car.carId, deviceId)) : onAction(action))}>
            {t(`buttons.${action}`)}
          </Button>
        ))}
      </div>
    </div>
  );
}
