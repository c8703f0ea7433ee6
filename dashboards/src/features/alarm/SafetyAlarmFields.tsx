/**
 * The safety alarm dialog's content (console-spec §2): the alarm's fields on the left, the map (height
 * 300) on the right (below them on a narrow screen), the attachment slider underneath.
 */
import { Carousel, Col, Descriptions, Empty, Row, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { loadable } from '../../components/loadable';
import { formatTime } from '../map/popup/format';
import { MediaView } from '../media/MediaUploadPopup';
import { mediaKind } from '../media/mediaPush';
import type { Alarm, AlarmAttachment } from './api';

// The map (leaflet) loads with the first alarm shown, not with every page: the dialog is always mounted.
const AlarmMap = loadable(() => import('./AlarmMap').then((module) => module.AlarmMap), () => <div style={{ height: 300 }} />);

export interface Counts {
  today: number | null;
  unhandled: number | null;
}

/** The attachment slider: the alarm's images (and clips) fetched as blobs with the token. */
function AttachmentSlider({ files }: { files: AlarmAttachment[] }) {
  const { t } = useTranslation('alarm');
  if (files.length === 0) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('dialog.noAttachment')} data-testid="alarm-no-attachment" />;
  return (
    <div data-testid="alarm-attachments" data-count={files.length} className="safety-alarm-attachments">
      <Carousel arrows dots infinite={false} adaptiveHeight>
        {files.map((file) => (
          <div key={String(file.id)} data-testid="alarm-attachment">
            <MediaView file={{ id: String(file.id), objectKey: file.objectKey, fileStoreType: file.fileStoreType ?? 1, kind: mediaKind(file.mediaType) }} />
          </div>
        ))}
      </Carousel>
    </div>
  );
}

export function SafetyAlarmFields({ alarm, counts, files }: { alarm: Alarm; counts: Counts; files: AlarmAttachment[] }) {
  const { t } = useTranslation('alarm');
  const speed = alarm.speed ?? null;
  return (
    <>
      <Row gutter={[16, 16]}>
        <Col xs={24} md={10}>
          <Typography.Title level={5} data-testid="safety-alarm-desc" style={{ marginTop: 0 }}>
            {alarm.desc || alarm.key || '-'}
          </Typography.Title>
          <Typography.Text type="danger" data-testid="safety-alarm-status">{t('dialog.statusUnhandled')}</Typography.Text>
          <Descriptions size="small" column={1} style={{ marginTop: 8 }}>
            <Descriptions.Item label={t('dialog.plate')}><span data-testid="safety-alarm-plate">{alarm.plateNumber || '-'}</span></Descriptions.Item>
            <Descriptions.Item label={t('dialog.todayCount')}><span data-testid="safety-alarm-today">{counts.today ?? '-'}</span></Descriptions.Item>
            <Descriptions.Item label={t('dialog.unhandledCount')}><span data-testid="safety-alarm-unhandled">{counts.unhandled ?? '-'}</span></Descriptions.Item>
            <Descriptions.Item label={t('dialog.driver')}><span data-testid="safety-alarm-driver">{alarm.driverName || '-'}</span></Descriptions.Item>
            <Descriptions.Item label={t('dialog.fleet')}><span data-testid="safety-alarm-fleet">{alarm.fleetName || alarm.enterpriseName || '-'}</span></Descriptions.Item>
            <Descriptions.Item label={t('dialog.startTime')}>{formatTime(alarm.startTime)}</Descriptions.Item>
            <Descriptions.Item label={t('dialog.speed')}>{speed === null ? '-' : t('dialog.speedValue', { speed: Number(speed.toFixed(1)) })}</Descriptions.Item>
            <Descriptions.Item label={t('dialog.address')}>{alarm.address || '-'}</Descriptions.Item>
          </Descriptions>
        </Col>
        <Col xs={24} md={14}>
          <AlarmMap deviceId={alarm.deviceId} plate={alarm.plateNumber ?? ''} lng={alarm.lng} lat={alarm.lat} />
        </Col>
      </Row>
      <Typography.Title level={5}>{t('dialog.attachments')}</Typography.Title>
      <AttachmentSlider files={files} />
    </>
  );
}
