/**
 * The popup of one track point (console-spec §2): time, ACC, lng, lat, direction, altitude, mileage,
 * speed, fuel and alarm, the alarm text cut to 35 characters plus an ellipsis; a GB/T 32960 / GB 17691
 * point's alarm object adds its level, fault lists and MIL (GbAlarmRows, platform-spec §3). Ready for track replay.
 */
import { useTranslation } from 'react-i18next';
import { alarmBitNames, formatNumber, formatTime, truncateAlarm } from './format';
import { GbAlarmRows } from './GbAlarmRows';

export interface TrackPoint {
  time: string | number;
  acc?: number | null;
  lng: number;
  lat: number;
  direction?: number | null;
  altitude?: number | null;
  mileage?: number | null;
  speed?: number | null;
  oilmass?: number | null;
  /** JT/T 808 alarm bitmask. */
  alarm?: number | null;
  /** Ready-made alarm text (e.g. ADAS/DSM descriptions), used instead of the bitmask when given. */
  alarmText?: string | null;
  /** A GB/T 32960 / GB 17691 point's alarm object (the track's `gbAlarm`), or null. */
  gbAlarm?: Record<string, unknown> | null;
}

export function TrackPointPopup({ point }: { point: TrackPoint }) {
  const { t } = useTranslation('map');
  const unit = (key: string, value: number | null | undefined, digits = 1) => {
    const text = formatNumber(value, digits);
    return text === null ? '-' : t(`units.${key}`, { value: text });
  };
  const alarm = point.alarmText ?? alarmBitNames(point.alarm, t).join(',');
  const rows: [string, string, string][] = [
    ['time', t('track.time'), formatTime(point.time)],
    ['acc', t('track.acc'), point.acc == null ? '-' : t(point.acc ? 'acc.on' : 'acc.off')],
    ['lng', t('track.lng'), point.lng.toFixed(6)],
    ['lat', t('track.lat'), point.lat.toFixed(6)],
    ['direction', t('track.direction'), unit('degree', point.direction, 0)],
    ['altitude', t('track.altitude'), unit('m', point.altitude, 0)],
    ['mileage', t('track.mileage'), unit('km', point.mileage)],
    ['speed', t('track.speed'), unit('kmh', point.speed)],
    ['fuel', t('track.fuel'), unit('litre', point.oilmass)],
    ['alarm', t('track.alarm'), alarm ? truncateAlarm(alarm) : '-'],
  ];
  return (
    <div className="fw-track-popup" data-testid="track-popup">
      {rows.map(([field, label, value]) => (
        <div className="fw-popup-row" key={field}>
          <span className="fw-popup-label">{label}</span>
          <span className="fw-popup-value" data-testid={`track-${field}`} title={field === 'alarm' ? alarm : undefined}>
            {value}
          </span>
        </div>
      ))}
      <GbAlarmRows item={point.gbAlarm} />
    </div>
  );
}
