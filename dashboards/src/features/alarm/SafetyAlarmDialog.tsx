/**
 * The real-time safety alarm dialog (console-spec §2, title "实时安全报警", width 1150), opened by push 13:
 * the alarm's fields on the left, a map (height 300) with the vehicle on the right, the attachment images
 * below, and the buttons voice talk (features/video's talk dialog), TTS, handle, ignore, vehicle details and
 * previous / next among today's unhandled active-safety alarms of the same car (shown only while there are
 * any). Opened only as the user's notification rule for the alarm's key allows (console-spec §6). The fleet
 * name is the vehicle's group from the alarm row (`fleetName`), else its enterprise.
 */
import { App, Button, Carousel, Col, Descriptions, Empty, Modal, Row, Space, Typography } from 'antd';
import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { LiveHub } from '../../live/LiveHub';
import { useLiveHub } from '../../live/useLiveHub';
import { carDetailUrl } from '../carDetail/routing';
import { CommandDialog } from '../command/CommandDialog';
import type { CarRow } from '../map/model/types';
import { formatTime } from '../map/popup/format';
import { MediaView } from '../media/MediaUploadPopup';
import { mediaKind } from '../media/mediaPush';
import { announceAlarmChanged } from './alarmEvents';
import { PUSH_AI_ALARM, pushedAlarm } from './alarmPush';
import {
  ACTIVE_SAFETY_TYPES,
  alarmId,
  countAlarms,
  fetchAlarm,
  fetchAlarmAttachments,
  fetchUnhandledAt,
  ignoreAlarm,
  todayCarConditions,
  type Alarm,
  type AlarmAttachment,
  type NotifySettings,
} from './api';
import HandleAlarmDialog from './HandleAlarmDialog';
import { indexAfterHandled, navigate as step, type Step } from './navigation';
import { alarmGate } from './notifyRules';
import { useNotifySettings } from './useNotifySettings';

// The map (leaflet) loads with the first alarm shown, not with every page: the dialog is always mounted.
const AlarmMap = lazy(() => import('./AlarmMap').then((module) => ({ default: module.AlarmMap })));

export const SAFETY_DIALOG_WIDTH = 1150;
/** The talk dialog (and its player, mpegts.js) loads on the first click: the layout carries this dialog. */
const VehicleMediaDialog = lazy(() => import('../video/VehicleMediaDialog').then((m) => ({ default: m.VehicleMediaDialog })));
/** How often the dialog re-reads an alarm whose attachments have not arrived yet. */
const ATTACHMENT_POLL_MS = 3000;
/** Alarms pushed while one is on screen, kept until it closes (the newest is shown next). */
const MAX_WAITING = 20;

const SAFETY_RANGE = [{ fieldName: 'type', start: ACTIVE_SAFETY_TYPES.start, end: ACTIVE_SAFETY_TYPES.end }];

interface Counts {
  today: number | null;
  unhandled: number | null;
}

/** The row read from the API wins, except for fields it leaves empty. */
function merged(base: Alarm, row: Alarm | null): Alarm {
  if (!row) return base;
  const out = { ...base } as Record<string, unknown>;
  for (const [key, value] of Object.entries(row)) if (value !== null && value !== undefined) out[key] = value;
  return out as unknown as Alarm;
}

async function readCounts(alarm: Alarm): Promise<Counts> {
  const [today, unhandled] = await Promise.all([
    countAlarms({ ...todayCarConditions(alarm.carId, alarm.deviceId, false), rangeConditions: SAFETY_RANGE }),
    countAlarms({ ...todayCarConditions(alarm.carId, alarm.deviceId, true), rangeConditions: SAFETY_RANGE }),
  ]);
  return { today, unhandled };
}

/** The attachment slider: the alarm's images (and clips) fetched as blobs with the token. */
function AttachmentSlider({ files }: { files: AlarmAttachment[] }) {
  const { t } = useTranslation('alarm');
  if (files.length === 0) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('dialog.noAttachment')} data-testid="alarm-no-attachment" />;
  return (
    <div data-testid="alarm-attachments" data-count={files.length} style={{ background: '#f5f5f5', borderRadius: 8, padding: 8 }}>
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

export default function SafetyAlarmDialog() {
  return <SafetyAlarms hub={useLiveHub()} settings={useNotifySettings()} />;
}

/**
 * The dialog over a given hub's pushes, for the layout and for tests. A push 13 opens it only when the
 * user's rule for its key lets a window through now (`alarmGate`, as the push-2 notices: not muted, window
 * on, inside the rule's hours); its spoken alert is the push-2 notice's (AlarmNotices), under the same gate.
 */
export function SafetyAlarms({ hub, settings, now = () => new Date() }: {
  hub: Pick<LiveHub, 'onPush'> | null;
  settings: NotifySettings | null;
  now?: () => Date;
}) {
  const { t } = useTranslation('alarm');
  const { message } = App.useApp();
  const navigateTo = useNavigate();
  const [alarm, setAlarm] = useState<Alarm | null>(null);
  const [index, setIndex] = useState(1);
  const [counts, setCounts] = useState<Counts>({ today: null, unhandled: null });
  const [files, setFiles] = useState<AlarmAttachment[]>([]);
  const [handling, setHandling] = useState(false);
  const [tts, setTts] = useState(false);
  const [talk, setTalk] = useState(false);
  const [busy, setBusy] = useState(false);
  const generation = useRef(0);

  /** Shows `shown` at `at` and reads its full row and the car's counts. */
  const show = useCallback(async (shown: Alarm, at: number) => {
    const mine = ++generation.current;
    setAlarm(shown);
    setIndex(at);
    const [row, nextCounts] = await Promise.all([fetchAlarm(alarmId(shown)), readCounts(shown)]);
    if (mine !== generation.current) return;
    setAlarm((current) => (current && alarmId(current) === alarmId(shown) ? merged(current, row) : current));
    setCounts(nextCounts);
  }, []);

  // An alarm on screen is never swapped under the operator: later ones wait and the newest shows on close.
  const shown = useRef(false);
  const waiting = useRef<Alarm[]>([]);
  const rules = useRef({ settings, now });
  useEffect(() => {
    shown.current = alarm !== null;
    rules.current = { settings, now };
  });
  useEffect(() => (hub ? hub.onPush((push) => {
    const next = pushedAlarm(push, PUSH_AI_ALARM);
    if (!next || !alarmGate(rules.current.settings, next.key, rules.current.now()).window) return;
    if (shown.current) {
      waiting.current = [...waiting.current, next].slice(-MAX_WAITING);
      return;
    }
    shown.current = true;
    void show(next, 1);
  }) : undefined), [hub, show]);

  const id = alarm ? alarmId(alarm) : null;
  const atted = alarm?.atted ?? null;

  // Attachments: read when the alarm changes and again when it gets its files (atted).
  useEffect(() => {
    if (id === null) return undefined;
    const controller = new AbortController();
    void fetchAlarmAttachments(id, controller.signal).then((rows) => {
      if (!controller.signal.aborted) setFiles(rows);
    });
    return () => controller.abort();
  }, [id, atted]);

  // Files arrive after the alarm (0x9208 -> upload): re-read the row until it says so.
  useEffect(() => {
    if (id === null || atted === true) return undefined;
    const timer = setInterval(() => {
      void fetchAlarm(id).then((row) => {
        if (row?.atted) setAlarm((current) => (current && alarmId(current) === id ? { ...current, atted: true } : current));
      });
    }, ATTACHMENT_POLL_MS);
    return () => clearInterval(timer);
  }, [id, atted]);

  const close = useCallback(() => {
    generation.current += 1;
    setFiles([]);
    setCounts({ today: null, unhandled: null });
    const next = waiting.current.pop();
    waiting.current = [];
    if (next) void show(next, 1);
    else setAlarm(null);
  }, [show]);

  const goTo = useCallback(async (base: Alarm, at: number) => {
    setBusy(true);
    try {
      const page = await fetchUnhandledAt(base, at);
      const row = page?.list?.[0];
      if (row) await show(row, at);
    } finally {
      setBusy(false);
    }
  }, [show]);

  const move = (direction: Step) => {
    if (!alarm) return;
    const result = step(index, counts.unhandled ?? 0, direction);
    if ('edge' in result) {
      void message.warning(t(result.edge === 'first' ? 'dialog.first' : 'dialog.last'));
      return;
    }
    void goTo(alarm, result.index);
  };

  /** After handling or ignoring: the next unhandled alarm of the car at the same place, or close. */
  const afterHandled = async () => {
    if (!alarm) return;
    const fresh = await readCounts(alarm);
    setCounts(fresh);
    const at = indexAfterHandled(index, fresh.unhandled ?? 0);
    if (at === null) close();
    else await goTo(alarm, at);
  };

  const ignore = async () => {
    if (!alarm) return;
    setBusy(true);
    try {
      const reply = await ignoreAlarm(alarmId(alarm));
      if (reply.code === 0) {
        void message.success(t('dialog.ignored'));
        announceAlarmChanged();
        await afterHandled();
      }
    } finally {
      setBusy(false);
    }
  };

  const car: CarRow | null = alarm?.carId != null ? {
    carId: alarm.carId,
    enterpriseId: alarm.enterpriseId ?? 0,
    groupId: null,
    plateNumber: alarm.plateNumber ?? '',
    plateColor: null,
    vin: null,
    masterDeviceId: alarm.deviceId,
    masterDeviceSn: null,
    masterDevicePhone: null,
    masterDeviceBizState: null,
    masterDeviceState: null,
    lastOnlineTime: null,
    hasVideo: null,
    hasPhoto: null,
    hasMicrophone: null,
    driverId: null,
    driverName: alarm.driverName,
  } : null;

  const unhandled = counts.unhandled ?? 0;
  const speed = alarm?.speed ?? null;

  return (
    <>
      <Modal
        open={alarm !== null}
        title={t('dialog.title')}
        width={SAFETY_DIALOG_WIDTH}
        onCancel={close}
        footer={null}
        destroyOnHidden
        mask={{ closable: false }}
      >
        {alarm && (
          <div data-testid="safety-alarm-dialog" data-alarm-id={alarmId(alarm)} data-index={index} data-unhandled={unhandled}>
            <Row gutter={16}>
              <Col span={10}>
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
              <Col span={14}>
                <Suspense fallback={<div style={{ height: 300 }} />}>
                  <AlarmMap deviceId={alarm.deviceId} plate={alarm.plateNumber ?? ''} lng={alarm.lng} lat={alarm.lat} />
                </Suspense>
              </Col>
            </Row>
            <Typography.Title level={5}>{t('dialog.attachments')}</Typography.Title>
            <AttachmentSlider files={files} />
            <Space wrap style={{ marginTop: 16 }}>
              <Button onClick={() => setTalk(true)} disabled={!car} data-testid="safety-alarm-talk">{t('dialog.voiceTalk')}</Button>
              <Button onClick={() => setTts(true)} disabled={!car} data-testid="safety-alarm-tts">{t('dialog.tts')}</Button>
              <Button type="primary" onClick={() => setHandling(true)} data-testid="safety-alarm-handle">{t('dialog.handle')}</Button>
              <Button onClick={() => void ignore()} loading={busy} data-testid="safety-alarm-ignore">{t('dialog.ignore')}</Button>
              <Button
                disabled={alarm.carId === null}
                data-testid="safety-alarm-details"
                onClick={() => {
                  if (alarm.carId === null) return;
                  const url = carDetailUrl(alarm.carId, alarm.deviceId);
                  close();
                  void navigateTo(url);
                }}
              >
                {t('dialog.details')}
              </Button>
              {unhandled > 0 && (
                <>
                  <Button onClick={() => move(-1)} disabled={busy} data-testid="safety-alarm-previous">{t('dialog.previous')}</Button>
                  <Button onClick={() => move(1)} disabled={busy} data-testid="safety-alarm-next">{t('dialog.next')}</Button>
                  <span data-testid="safety-alarm-position">{t('dialog.position', { index, total: unhandled })}</span>
                </>
              )}
            </Space>
          </div>
        )}
      </Modal>
      <HandleAlarmDialog
        alarm={alarm}
        open={handling && alarm !== null}
        onClose={() => setHandling(false)}
        onDone={() => {
          setHandling(false);
          void afterHandled();
        }}
      />
      {talk && car && (
        <Suspense fallback={null}>
          <VehicleMediaDialog key={`talk-${car.carId}`} mode="intercom" car={car} onClose={() => setTalk(false)} />
        </Suspense>
      )}
      {tts && car && <CommandDialog key={`tts-${car.carId}`} action="tts" car={car} onClose={() => setTts(false)} />}
    </>
  );
}

