/** The detail page's cards: vehicle, current state and position, today, devices, driver, photos. */
import { Card, Descriptions, Empty, Image, Space, Table, Tag } from 'antd';
import FitDescriptions from '../../components/FitDescriptions';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { stateColour } from '../../live/bizState';
import { alarmBitNames, formatCoordinate, formatNumber, formatTime } from '../map/popup/format';
import { ageOf } from './age';
import { fetchPhotoUrl, type CarDetail, type DetailAlarmPoint, type DetailDevice } from './api';
import { rememberDriver } from '../driver/driverCache';

const dash = (value: unknown) => (value === null || value === undefined || value === '' ? '-' : String(value));

export function VehicleCard({ detail }: { detail: CarDetail }) {
  const { t } = useTranslation(['detail', 'map']);
  const { car } = detail;
  const colour = car.plateColor != null && car.plateColor >= 1 && car.plateColor <= 8 ? t(`map:plateColor.${car.plateColor}`) : '-';
  return (
    <Card size="small" title={t('sections.vehicle')} data-testid="detail-vehicle">
      <FitDescriptions size="small" max={4}>
        <Descriptions.Item label={t('fields.plateNumber')}><span data-testid="detail-plateNumber">{car.plateNumber}</span></Descriptions.Item>
        <Descriptions.Item label={t('fields.plateColor')}>{colour}</Descriptions.Item>
        <Descriptions.Item label={t('fields.vin')}>{dash(car.vin)}</Descriptions.Item>
        <Descriptions.Item label={t('fields.enterprise')}>{car.enterpriseName}</Descriptions.Item>
        <Descriptions.Item label={t('fields.group')}>{dash(car.groupName)}</Descriptions.Item>
        <Descriptions.Item label={t('fields.carModel')}>{dash(car.carModelName)}</Descriptions.Item>
        <Descriptions.Item label={t('fields.carType')}>{dash(car.carTypeName)}</Descriptions.Item>
      </FitDescriptions>
    </Card>
  );
}

export function StateCard({ detail, now }: { detail: CarDetail; now: number }) {
  const { t } = useTranslation(['detail', 'map']);
  const { state, position } = detail;
  const unit = (key: string, value: number | null | undefined) => {
    const text = formatNumber(value);
    return text === null ? '-' : t(`map:units.${key}`, { value: text });
  };
  const age = ageOf(position?.time, now);
  const online = state?.online === 1;
  const bizState = state?.bizState ?? 4;
  return (
    <Card size="small" title={t('sections.state')} data-testid="detail-state">
      <Space size={4} wrap style={{ marginBottom: 12 }}>
        <Tag color={online ? 'success' : 'default'} data-testid="detail-online" data-online={online ? 1 : 0}>
          {t(online ? 'map:online.yes' : 'map:online.no')}
        </Tag>
        <Tag color={stateColour(bizState)} data-testid="detail-bizState">{t(`map:bizState.${bizState}`)}</Tag>
        <Tag data-testid="detail-acc">{t(state?.acc ? 'map:acc.on' : 'map:acc.off')}</Tag>
      </Space>
      {position ? (
        <FitDescriptions size="small" max={3}>
          <Descriptions.Item label={t('fields.time')}>{formatTime(position.time)}</Descriptions.Item>
          <Descriptions.Item label={t('fields.age')}>{age ? t(`age.${age.key}`, { count: age.count }) : '-'}</Descriptions.Item>
          <Descriptions.Item label={t('fields.speed')}>{unit('kmh', position.speed)}</Descriptions.Item>
          <Descriptions.Item label={t('fields.mileage')}>{unit('km', position.mileage)}</Descriptions.Item>
          <Descriptions.Item label={t('fields.direction')}>{unit('degree', position.direction)}</Descriptions.Item>
          <Descriptions.Item label={t('fields.position')}>{formatCoordinate(position.lng, position.lat)}</Descriptions.Item>
          <Descriptions.Item label={t('fields.address')} span="filled">
            <span data-testid="detail-address">{position.address.address || t('empty.address')}</span>
          </Descriptions.Item>
          <Descriptions.Item label={t('fields.alarm')} span="filled">
            {alarmBitNames(position.alarmType, (key) => t(`map:${key}`)).join(', ') || t('map:popup.noAlarm')}
          </Descriptions.Item>
        </FitDescriptions>
      ) : (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('empty.position')} data-testid="detail-no-position" />
      )}
    </Card>
  );
}

export function TodayCard({ detail }: { detail: CarDetail }) {
  const { t } = useTranslation(['detail', 'map']);
  const { today } = detail;
  const mileage = formatNumber(today.mileageKm);
  return (
    <Card size="small" title={t('sections.today')} data-testid="detail-today">
      <FitDescriptions size="small" max={3} minColumnWidth={200}>
        <Descriptions.Item label={t('fields.todayMileage')}>
          <span data-testid="detail-todayMileage">{mileage === null ? '-' : t('map:units.km', { value: mileage })}</span>
        </Descriptions.Item>
        <Descriptions.Item label={t('fields.todayPoints')}>{today.points}</Descriptions.Item>
        <Descriptions.Item label={t('fields.todayAlarms')}><span data-testid="detail-alarmCount">{today.alarmCount}</span></Descriptions.Item>
      </FitDescriptions>
      <Table<DetailAlarmPoint>
        size="small"
        rowKey="time"
        pagination={false}
        dataSource={today.alarms}
        locale={{ emptyText: t('empty.alarms') }}
        footer={today.alarmCount > today.alarms.length ? () => t('more', { total: today.alarmCount, shown: today.alarms.length }) : undefined}
        columns={[
          { key: 'time', title: t('fields.time'), render: (_, row) => formatTime(row.time), width: 160 },
          { key: 'alarm', title: t('fields.alarm'), width: '35%', render: (_, row) => row.bits.map((bit) => t(`map:alarmBits.${bit}`)).join(', ') },
          { key: 'speed', title: t('fields.speed'), render: (_, row) => dash(formatNumber(row.speed)), width: 70 },
          { key: 'position', title: t('fields.position'), render: (_, row) => formatCoordinate(row.lng, row.lat) },
        ]}
      />
    </Card>
  );
}

export function DevicesCard({ detail }: { detail: CarDetail }) {
  const { t } = useTranslation(['detail', 'map']);
  return (
    <Card size="small" title={t('sections.devices')} data-testid="detail-devices">
      <Table<DetailDevice>
        size="small"
        rowKey="id"
        pagination={false}
        dataSource={detail.devices}
        locale={{ emptyText: t('empty.devices') }}
        scroll={{ x: true }}
        columns={[
          { key: 'phone', title: t('fields.phone'), render: (_, d) => <span data-testid={`detail-device-${d.id}`}>{d.phone}</span> },
          { key: 'deviceSn', title: t('fields.deviceSn'), dataIndex: 'deviceSn' },
          { key: 'deviceName', title: t('fields.deviceName'), render: (_, d) => dash(d.deviceName) },
          { key: 'protocol', title: t('fields.protocol'), render: (_, d) => `${d.protocol} ${d.protocolVersion}` },
          { key: 'master', title: t('fields.master'), render: (_, d) => (d.master ? <Tag color="blue">{t('fields.master')}</Tag> : null) },
          { key: 'online', title: t('fields.online'),
            render: (_, d) => <Tag color={d.online ? 'success' : 'default'}>{t(d.online ? 'map:online.yes' : 'map:online.no')}</Tag> },
          { key: 'msisdn', title: t('fields.msisdn'), render: (_, d) => dash(d.sim?.msisdn) },
          { key: 'iccid', title: t('fields.iccid'), render: (_, d) => dash(d.sim?.iccid) },
        ]}
      />
    </Card>
  );
}

export function DriverCard({ detail }: { detail: CarDetail }) {
  const { t } = useTranslation('detail');
  const { driver } = detail;
  useEffect(() => {
    if (driver) rememberDriver(driver); // the detail embeds it whole: later reads by id need no request
  }, [driver]);
  return (
    <Card size="small" title={t('sections.driver')} data-testid="detail-driver">
      {driver ? (
        <Descriptions size="small" column={1}>
          <Descriptions.Item label={t('fields.name')}>{driver.name}</Descriptions.Item>
          <Descriptions.Item label={t('fields.driverPhone')}>{dash(driver.phone)}</Descriptions.Item>
          <Descriptions.Item label={t('fields.licenseNo')}>{dash(driver.licenseNo)}</Descriptions.Item>
        </Descriptions>
      ) : (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('empty.driver')} />
      )}
    </Card>
  );
}

export function PhotosCard({ detail, canSee }: { detail: CarDetail; canSee: boolean }) {
  const { t } = useTranslation('detail');
  const [urls, setUrls] = useState<{ id: string; url: string }[]>([]);
  useEffect(() => {
    if (!canSee || detail.photos.length === 0) return undefined;
    const controller = new AbortController();
    let made: string[] = [];
    void Promise.all(detail.photos.map(async (p) => ({ id: `${p.source}-${p.id}`, url: await fetchPhotoUrl(p, controller.signal) }))).then((found) => {
      made = found.flatMap(({ url }) => (url?.startsWith('blob:') ? [url] : []));
      if (controller.signal.aborted) made.forEach((url) => URL.revokeObjectURL(url));
      else setUrls(found.flatMap(({ id, url }) => (url ? [{ id, url }] : [])));
    });
    return () => {
      controller.abort();
      made.forEach((url) => URL.revokeObjectURL(url));
    };
  }, [detail.photos, canSee]);
  const shown = canSee ? urls : [];
  return (
    <Card size="small" title={t('sections.photos')} data-testid="detail-photos">
      {shown.length ? (
        <Image.PreviewGroup>
          <Space wrap>{shown.map(({ id, url }) => <Image key={id} src={url} width={96} height={96} style={{ objectFit: 'cover' }} />)}</Space>
        </Image.PreviewGroup>
      ) : (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('empty.photos')} data-testid="detail-no-photos" />
      )}
    </Card>
  );
}
