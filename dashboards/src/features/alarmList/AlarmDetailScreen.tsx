import { App, Button, Card, Col, Descriptions, Empty, List, Result, Row, Space, Spin, Table, Tag, type ButtonProps } from 'antd';
import dayjs from 'dayjs';
import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { useAccess } from '../../auth/access';
import { AlarmMap } from '../alarm/AlarmMap';
import { fetchAlarm, fetchAlarmAttachments, ignoreAlarm, type Alarm, type AlarmAttachment } from '../alarm/api';
import HandleAlarmDialog from '../alarm/HandleAlarmDialog';
import { evidenceFile, type EvidenceFile } from '../evidence/evidenceFile';
import MediaPreview from '../evidence/MediaPreview';
import type { ListRecord } from '../list/types';
import { fetchConfirmRecords } from './api';
import { isUnhandled, trackHref } from './model';

function time(value: unknown): string {
  return value === null || value === undefined || value === '' ? '' : dayjs(typeof value === 'number' ? value : String(value)).format('YYYY-MM-DD HH:mm:ss');
}

interface Loaded {
  id: string;
  alarm: Alarm | null;
  records: ListRecord[];
  files: AlarmAttachment[];
}

/**
 * An alarm's detail (platform-spec §2 alarm detail, safetyAlarm detail; `?id=`): its
 * fields, its handling (the one handling dialog, ignore), its confirm records (entity
 * alarmConfirmRecord), its attachments (deviceUploadFile by alarmId, each previewed) and a small map.
 */
export default function AlarmDetailScreen({ back }: { back: 'alarm' | 'safetyAlarm' }) {
  const { t } = useTranslation('alarmList');
  const { modal, message } = App.useApp();
  const canHandle = useAccess().can('alarm', 'update');
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [version, setVersion] = useState(0);
  const [handling, setHandling] = useState(false);
  const [preview, setPreview] = useState<EvidenceFile | null>(null);

  useEffect(() => {
    if (!id) return undefined;
    const controller = new AbortController();
    const { signal } = controller;
    void Promise.all([fetchAlarm(id, signal), fetchConfirmRecords(id, signal), fetchAlarmAttachments(id, signal)]).then(([alarm, records, files]) => {
      if (signal.aborted) return;
      setLoaded({ id, alarm, records: records.code === 0 ? (records.data?.list ?? []) : [], files });
    });
    return () => controller.abort();
  }, [id, version]);

  if (!id) return <Result status="404" title={t('detail.missing')} />;
  if (!loaded || loaded.id !== id) return <Spin style={{ display: 'block', margin: 48 }} />;
  const { alarm, records, files } = loaded;
  if (!alarm) return <Result status="404" title={t('detail.notFound')} data-testid="alarm-detail-not-found" />;

  const record = alarm as unknown as ListRecord;
  const reload = () => setVersion((v) => v + 1);
  const ignore = () => modal.confirm({
    title: t('ignore.confirm', { plate: alarm.plateNumber ?? '' }),
    okButtonProps: { 'data-testid': 'alarm-ignore-ok' } as ButtonProps,
    onOk: async () => {
      const reply = await ignoreAlarm(alarm.id);
      if (reply.code === 0) void message.success(t('ignore.done'));
      reload();
    },
  });
  const track = trackHref(record);
  const items: [string, ReactNode][] = [
    ['plateNumber', alarm.plateNumber],
    ['desc', alarm.desc ?? alarm.key],
    ['type', alarm.type === null ? '' : t(`enums.type.${alarm.type}`, { defaultValue: String(alarm.type) })],
    ['level', alarm.level === null ? '' : t(`enums.level.${alarm.level}`, { defaultValue: String(alarm.level) })],
    ['state', <Tag key="state" color={isUnhandled(record) ? 'red' : 'green'} data-testid="alarm-detail-state">{t(`enums.state.${alarm.state ?? 0}`)}</Tag>],
    ['startTime', time(alarm.startTime)],
    ['endTime', time(alarm.endTime)],
    ['speed', alarm.speed === null ? '' : `${alarm.speed} km/h`],
    ['driverName', alarm.driverName || '-'],
    ['enterpriseName', alarm.enterpriseName],
    ['lng', alarm.lng],
    ['lat', alarm.lat],
    ['address', alarm.address],
    ['opinion', alarm.opinion],
    ['confirmName', alarm.confirmName],
    ['confirmTime', time(alarm.confirmTime)],
    ['warnUuid', alarm.warnUuid],
    // a superior platform's urging (JT/T 809 督办): the regulator's deadline for handling it
    ...(alarm.urgingDeadline != null
      ? [['urgingDeadline', <Tag key="urging" color="orange" data-testid="alarm-detail-urging">{time(alarm.urgingDeadline)}</Tag>] as [string, ReactNode]]
      : []),
  ];

  return (
    <Space orientation="vertical" size={12} style={{ width: '100%' }} data-testid="alarm-detail">
      <Card size="small" title={t('detail.title')}
        extra={(
          <Space>
            {canHandle && isUnhandled(record) && (
              <>
                <Button type="primary" size="small" onClick={() => setHandling(true)} data-testid="alarm-detail-handle">{t('actions.handle')}</Button>
                <Button size="small" onClick={ignore} data-testid="alarm-detail-ignore">{t('actions.ignore')}</Button>
              </>
            )}
            {track && <Link to={track} data-testid="alarm-detail-track"><Button size="small">{t('actions.track')}</Button></Link>}
            <Link to={`/list/${back}`}>{t('detail.back')}</Link>
          </Space>
        )}>
        <Row gutter={12}>
          <Col xs={24} xl={14}>
            <Descriptions size="small" bordered column={2} data-testid="alarm-detail-fields"
              items={items.map(([name, value]) => ({ key: name, label: t(`fields.${name}`), children: value ?? '' }))} />
          </Col>
          <Col xs={24} xl={10}>
            {alarm.lng !== null && alarm.lat !== null
              ? <AlarmMap deviceId={alarm.deviceId} plate={alarm.plateNumber ?? ''} lng={alarm.lng} lat={alarm.lat} />
              : <Empty description={t('detail.noPosition')} />}
          </Col>
        </Row>
      </Card>
      <Card size="small" title={t('detail.records')}>
        <Table<ListRecord> size="small" rowKey={(r) => String(r.id)} dataSource={records} pagination={false} data-testid="alarm-confirm-records"
          columns={[
            { key: 'confirmTime', dataIndex: 'confirmTime', title: t('fields.confirmTime'), render: (v: unknown) => time(v) },
            { key: 'confirmName', dataIndex: 'confirmName', title: t('fields.confirmName') },
            { key: 'state', dataIndex: 'state', title: t('fields.state'), render: (v: unknown) => t(`enums.state.${String(v)}`, { defaultValue: String(v) }) },
            { key: 'opinion', dataIndex: 'opinion', title: t('fields.opinion') },
            { key: 'alarmDesc', dataIndex: 'alarmDesc', title: t('fields.desc') },
          ]} />
      </Card>
      <Card size="small" title={t('detail.attachments')}>
        <List size="small" dataSource={files} locale={{ emptyText: t('detail.noAttachments') }} data-testid="alarm-attachments"
          renderItem={(file) => (
            <List.Item actions={[<Button key="preview" type="link" size="small" data-testid={`alarm-attachment-${String(file.id)}`}
              onClick={() => setPreview(evidenceFile({ ...(file as unknown as ListRecord), plateNumber: alarm.plateNumber }))}>{t('detail.preview')}</Button>]}>
              {file.fileName ?? file.objectKey.split('/').pop()} {time(file.time)}
            </List.Item>
          )} />
      </Card>
      <HandleAlarmDialog alarm={alarm} open={handling} onClose={() => setHandling(false)} onDone={() => { setHandling(false); reload(); }} />
      <MediaPreview file={preview} onClose={() => setPreview(null)} />
    </Space>
  );
}
