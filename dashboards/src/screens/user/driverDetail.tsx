import { Button, Card, Col, Descriptions, Image, Result, Row, Spin, Statistic, Table, Tag } from 'antd';
import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { useAccess } from '../../auth/access';
import { fetchDriverDetail, type DriverAlarm, type DriverDetail, type DrivenVehicle } from '../../features/driverDetail/api';
import GradeTable from '../../features/driverDetail/GradeTable';
import { validity, validityColor } from '../../features/driverDetail/model';
import { fetchPhoto, photoSource } from '../../features/fleet/api';
import { formatTime } from '../../features/map/popup/format';

/** A date with its standing: red once past, orange inside the notice window (the bell's licence window). */
function ValidUntil({ date, daysLeft, noticeDays, testId }: {
  date: string | null; daysLeft: number | null; noticeDays: number; testId: string;
}) {
  const { t } = useTranslation('fleet');
  const standing = validity(daysLeft, noticeDays);
  const days = Math.abs(daysLeft ?? 0);
  return (
    <span data-testid={testId} data-state={standing}>
      {date || t('driverDetail.none')}
      {standing !== 'unknown' ? (
        <Tag color={validityColor(standing)} style={{ marginLeft: 8 }} data-testid={`${testId}-tag`}>
          {t(`driverDetail.validity.${standing}`, { days })}
        </Tag>
      ) : null}
    </span>
  );
}

/**
 * Platform-spec §2 "Detail pages: driver" (`?id=`, from the driver list): the record with its licence and
 * qualification certificate validity, the vehicles driven recently, the alarms attributed to the driver and
 * the driver's recent driving-behaviour scores (drivingGradeRule).
 * Another enterprise's driver answers 404 on the server and shows the not-found result here.
 */
export default function DriverDetailScreen() {
  const { t } = useTranslation('fleet');
  const { t: tAlarm } = useTranslation('alarmList');
  const { can } = useAccess();
  const [params] = useSearchParams();
  const id = params.get('id');
  // what was read, with the id it was read for: another id (a tab kept alive, a new link) shows the spinner
  const [loaded, setLoaded] = useState<{ id: string; detail: DriverDetail | null } | null>(null);
  const [photo, setPhoto] = useState<{ id: string; src: string } | null>(null);

  useEffect(() => {
    if (!id) return undefined;
    const controller = new AbortController();
    void fetchDriverDetail(id, controller.signal).then(async (reply) => {
      if (controller.signal.aborted) return;
      const found = reply.code === 0 && reply.data ? reply.data : null;
      setLoaded({ id, detail: found });
      const photoId = found?.driver.photoId;
      if (photoId) {
        const image = await fetchPhoto(photoId, controller.signal);
        if (!controller.signal.aborted && image.code === 0 && image.data) setPhoto({ id, src: photoSource(image.data) });
      }
    });
    return () => controller.abort();
  }, [id]);

  const current = loaded && loaded.id === id ? loaded : null;
  if (!id || (current && !current.detail)) {
    return <Result status="404" title={t('driverDetail.missing')} data-testid="driver-detail-missing" />;
  }
  if (!current?.detail) return <Spin style={{ display: 'block', margin: 48 }} />;
  const detail = current.detail;
  const photoSrc = photo && photo.id === id ? photo.src : null;
  const { driver, licence, card, vehicles, alarms, grades } = detail;
  const value = (v: string | null | undefined) => v || t('driverDetail.none');
  const field = (key: string, label: string, children: ReactNode) => ({
    key, label, children: <span data-testid={`driver-detail-${key}`}>{children}</span>,
  });
  const alarmLinks = can('alarm', 'query');
  return (
    <div data-testid="driver-detail">
      <Card title={`${t('driverDetail.sections.record')}: ${driver.name}`} style={{ marginBottom: 16 }}
        extra={can('driver', 'update') ? (
          <Link to={`/user/driver/edit?id=${driver.id}`} data-testid="driver-detail-edit"><Button>{t('driverDetail.edit')}</Button></Link>
        ) : null}>
        <Row gutter={16}>
          {photoSrc ? <Col flex="140px"><Image src={photoSrc} width={120} data-testid="driver-detail-photo" /></Col> : null}
          <Col flex="auto">
            <Descriptions size="small" column={{ xs: 1, md: 2, xl: 3 }} items={[
              field('name', t('driver.fields.name'), driver.name),
              field('phone', t('driver.fields.phone'), value(driver.phone)),
              field('nationalId', t('driver.fields.nationalId'), value(driver.nationalId)),
              field('licenceNo', t('driver.fields.licenceNo'), value(driver.licenceNo)),
              field('licenceClass', t('driver.fields.licenceClass'), value(driver.licenceClass)),
              { key: 'licenceExpire', label: t('driver.fields.licenceExpire'), children: (
                <ValidUntil date={licence.expire} daysLeft={licence.daysLeft} noticeDays={licence.noticeDays}
                  testId="driver-detail-licenceExpire" />) },
              field('qualificationNo', t('driver.fields.qualificationNo'), value(driver.qualificationNo)),
              field('enterprise', t('driverDetail.fields.enterprise'), driver.enterpriseName),
              field('state', t('driver.fields.state'), t(`driver.enums.state.${driver.state}`)),
              field('cardQualificationNo', t('driverDetail.fields.card'), value(card?.qualificationNo)),
              field('issuingAuthority', t('driverDetail.fields.issuingAuthority'), value(card?.issuingAuthority)),
              { key: 'cardValidUntil', label: t('driverDetail.fields.cardValidUntil'), children: (
                <ValidUntil date={card?.validUntil ?? null} daysLeft={card?.validDaysLeft ?? null}
                  noticeDays={licence.noticeDays} testId="driver-detail-cardValidUntil" />) },
              field('cardReadAt', t('driverDetail.fields.cardReadAt'), card ? formatTime(card.time) : t('driverDetail.none')),
            ]} />
          </Col>
        </Row>
      </Card>
      <Row gutter={16}>
        <Col xs={24} xl={10}>
          <Card title={t('driverDetail.sections.vehicles')} size="small" style={{ marginBottom: 16 }}>
            <Table<DrivenVehicle> size="small" rowKey="carId" pagination={false} dataSource={vehicles}
              data-testid="driver-detail-vehicles"
              columns={[
                { key: 'plateNumber', title: t('driverDetail.vehicles.plateNumber'),
                  render: (_, row) => <Link to={`/list/carDetail?carId=${row.carId}`}>{row.plateNumber}</Link> },
                { key: 'time', title: t('driverDetail.vehicles.time'), render: (_, row) => formatTime(row.time) },
                { key: 'source', title: t('driverDetail.vehicles.source'),
                  render: (_, row) => t(`driverDetail.vehicles.sources.${row.source}`) },
              ]} />
          </Card>
        </Col>
        <Col xs={24} xl={14}>
          <Card title={t('driverDetail.sections.alarms')} size="small" style={{ marginBottom: 16 }}>
            <Row gutter={16} style={{ marginBottom: 12 }}>
              <Col span={12}><Statistic title={t('driverDetail.alarms.today')} value={alarms.today}
                valueRender={(node) => <span data-testid="driver-detail-alarms-today">{node}</span>} /></Col>
              <Col span={12}><Statistic title={t('driverDetail.alarms.month')} value={alarms.month}
                valueRender={(node) => <span data-testid="driver-detail-alarms-month">{node}</span>} /></Col>
            </Row>
            <Table<DriverAlarm> size="small" rowKey="id" pagination={false} dataSource={alarms.latest}
              data-testid="driver-detail-alarms"
              columns={[
                { key: 'startTime', title: t('driverDetail.alarms.startTime'), render: (_, row) => formatTime(row.startTime) },
                { key: 'type', title: t('driverDetail.alarms.type'),
                  render: (_, row) => tAlarm(`enums.type.${row.type}`, { defaultValue: String(row.type) }) },
                { key: 'plateNumber', title: t('driverDetail.alarms.plateNumber'), render: (_, row) => row.plateNumber ?? '' },
                { key: 'address', title: t('driverDetail.alarms.address'), render: (_, row) => row.address ?? '' },
                { key: 'open', title: '', render: (_, row) => (alarmLinks ? (
                  <Link to={`/list/alarmDetail?id=${row.id}`} data-testid={`driver-detail-alarm-${row.id}`}>
                    {t('driverDetail.alarms.open')}</Link>) : null) },
              ]} />
          </Card>
        </Col>
      </Row>
      <Card title={t('driverDetail.sections.grades')} size="small" style={{ marginBottom: 16 }}>
        <GradeTable grades={grades} />
      </Card>
    </div>
  );
}
