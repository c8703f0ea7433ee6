/**
 * The real-time safety alarm dialog (console-spec §2, title "实时安全报警", width 1150), opened by push 13:
 * the alarm's fields, a map (height 300) with the vehicle and the attachment images (SafetyAlarmFields),
 * and the buttons voice talk (features/video's talk dialog), TTS, handle, ignore, vehicle details and
 * previous / next among today's unhandled active-safety alarms of the same car (shown only while there are
 * any). Opened only as the user's notification rule for the alarm's key allows (console-spec §6). The fleet
 * name is the vehicle's group from the alarm row (`fleetName`), else its enterprise.
 *
 * Workable at several alarms a minute (safetyQueue.ts): pushes queue, newest first, counted on the
 * header's badge; one opens the dialog only while it is closed and the operator has not closed it on
 * waiting alarms, and never when muted (by level or key, per user). The header and the buttons stay on
 * screen while the content scrolls (safetyAlarm.css).
 */
import { App, Button, Modal, Space } from 'antd';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useSession } from '../../auth/useSession';
import type { LiveHub } from '../../live/LiveHub';
import { useLiveHub } from '../../live/useLiveHub';
import { carDetailUrl } from '../carDetail/routing';
import { CommandDialog } from '../command/CommandDialog';
import { LoadedMediaDialog } from '../video/LoadedMediaDialog';
import { carOf } from './alarmCar';
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
import { alarmGate, ruleKeyOf } from './notifyRules';
import { SafetyAlarmFields, type Counts } from './SafetyAlarmFields';
import { activeMutes, isMuted, muteLabel, placeOf, popsUp, type MuteBy } from './safetyQueue';
import { MuteMenu, QueueBar } from './SafetyQueueBar';
import { safetyQueue, useSafetyQueue, type SafetyQueueStore } from './safetyQueueStore';
import { useNotifySettings } from './useNotifySettings';
import { useSafetyMutes } from './useSafetyMutes';
import './safetyAlarm.css';

export const SAFETY_DIALOG_WIDTH = 1150;
/** How often the dialog re-reads an alarm whose attachments have not arrived yet. */
const ATTACHMENT_POLL_MS = 3000;

const SAFETY_RANGE = [{ fieldName: 'type', start: ACTIVE_SAFETY_TYPES.start, end: ACTIVE_SAFETY_TYPES.end }];
const NO_COUNTS: Counts = { today: null, unhandled: null };
/** On the page's body while the dialog is open (safetyAlarm.css). */
const SAFETY_OPEN_CLASS = 'safety-alarm-open';

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

export default function SafetyAlarmDialog() {
  const { user } = useSession();
  // A sign-out unmounts the layout: the next user starts with an empty queue.
  useEffect(() => () => safetyQueue.reset(), []);
  // Keyed by the user: another user's sign-in in this tab reads that user's mutes.
  return <SafetyAlarms key={String(user?.id)} hub={useLiveHub()} settings={useNotifySettings()} userId={user?.id ?? null} />;
}

/**
 * The dialog over a given hub's pushes, for the layout and for tests. A push 13 counts only when the
 * user's rule for its rule key lets a window through now (`alarmGate`, as the push-2 notices: not muted, window
 * on, inside the rule's hours); its spoken alert is the push-2 notice's (AlarmNotices), under the same gate.
 */
export function SafetyAlarms({ hub, settings, now = () => new Date(), store = safetyQueue, userId = null }: {
  hub: Pick<LiveHub, 'onPush'> | null;
  settings: NotifySettings | null;
  now?: () => Date;
  store?: SafetyQueueStore;
  userId?: number | null;
}) {
  const { t } = useTranslation('alarm');
  const { message } = App.useApp();
  const navigateTo = useNavigate();
  const queue = useSafetyQueue(store);
  const [alarm, setAlarm] = useState<Alarm | null>(null);
  const [index, setIndex] = useState(1);
  const [counts, setCounts] = useState<Counts>(NO_COUNTS);
  const [files, setFiles] = useState<AlarmAttachment[]>([]);
  const { mutes, mute: addMute, unmute } = useSafetyMutes(userId, now);
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

  // An alarm on screen is never swapped under the operator, and a dialog the operator closed on waiting
  // alarms stays closed: later pushes only add to the queue's count.
  const shown = useRef(false);
  const dismissed = useRef(false);
  const rules = useRef({ settings, now, mutes });
  useEffect(() => {
    shown.current = alarm !== null;
    rules.current = { settings, now, mutes };
  });
  useEffect(() => (hub ? hub.onPush((push) => {
    const next = pushedAlarm(push, PUSH_AI_ALARM);
    if (!next || !alarmGate(rules.current.settings, ruleKeyOf(next), rules.current.now()).window) return;
    const muted = isMuted(rules.current.mutes, next, rules.current.now().getTime());
    if (!store.add(next, muted)) return; // a re-delivered push: already counted, never popped up twice
    if (!popsUp({ open: shown.current, dismissed: dismissed.current }, muted)) return;
    shown.current = true;
    void show(next, 1);
  }) : undefined), [hub, show, store]);

  // The badge opens the dialog on the newest waiting alarm.
  useEffect(() => store.onOpenRequest(() => {
    const newest = store.get()[0];
    if (!newest) return;
    shown.current = true;
    void show(newest.alarm, 1);
  }), [store, show]);

  const id = alarm ? alarmId(alarm) : null;
  const atted = alarm?.atted ?? null;
  const open = alarm !== null;

  // While it is open, notices (an alarm a minute and more) go under its mask instead of over its buttons.
  useEffect(() => {
    document.body.classList.toggle(SAFETY_OPEN_CLASS, open);
    return () => document.body.classList.remove(SAFETY_OPEN_CLASS);
  }, [open]);

  // Attachments: read when the alarm changes and again when it gets its files (atted).
  useEffect(() => {
    if (id === null) return undefined;
    const controller = new AbortController();
    void fetchAlarmAttachments(id, controller.signal).then((rows) => {
      if (!controller.signal.aborted) setFiles(rows);
    });
    return () => controller.abort();
  }, [id, atted]);

  // The files come one by one (one 0x1212 each) and the first sets atted: until every file the terminal
  // announced is in, re-read them (a photo shown first, its clip a few seconds later).
  const missing = atted === true && files.length < Number(alarm?.attachmentCount ?? 0);
  useEffect(() => {
    if (id === null || !missing) return undefined;
    const controller = new AbortController();
    const timer = setInterval(() => {
      void fetchAlarmAttachments(id, controller.signal).then((rows) => {
        // a failed read answers none: the files already shown stay
        if (!controller.signal.aborted) setFiles((shown) => (rows.length > shown.length ? rows : shown));
      });
    }, ATTACHMENT_POLL_MS);
    return () => {
      clearInterval(timer);
      controller.abort();
    };
  }, [id, missing]);

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

  /** Closing keeps the dialog closed while alarms wait (the badge reopens it). */
  const close = useCallback(() => {
    generation.current += 1;
    setFiles([]);
    setCounts(NO_COUNTS);
    dismissed.current = store.get().length > 0;
    setAlarm(null);
  }, [store]);

  const clearQueue = () => {
    store.clear();
    dismissed.current = false;
  };

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

  /**
   * After handling or ignoring: the alarm leaves the queue; then the car's next unhandled alarm at the
   * same place, else the queue's newest, else the dialog closes.
   */
  const afterHandled = async () => {
    if (!alarm) return;
    store.remove(alarmId(alarm));
    if (store.get().length === 0) dismissed.current = false;
    const fresh = await readCounts(alarm);
    setCounts(fresh);
    const at = indexAfterHandled(index, fresh.unhandled ?? 0);
    const newest = store.get()[0];
    if (at !== null) await goTo(alarm, at);
    else if (newest) await show(newest.alarm, 1);
    else close();
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

  const mute = (by: MuteBy, value: string, minutes: number) => {
    addMute(by, value, minutes);
    void message.success(t('dialog.mute.done', { what: muteLabel(t, by, value), minutes }));
  };

  const car = carOf(alarm);
  const unhandled = counts.unhandled ?? 0;
  const place = placeOf(queue, id);

  const footer = alarm && (
    <Space wrap size={[8, 8]} data-testid="safety-alarm-buttons">
      <MuteMenu alarm={alarm} mutes={activeMutes(mutes, now().getTime())} onMute={mute} onUnmute={unmute} />
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
  );

  return (
    <>
      <Modal
        open={open}
        title={(
          <div className="safety-alarm-title">
            <span>{t('dialog.title')}</span>
            <QueueBar place={place} count={queue.length} onStep={(at) => { const entry = queue[at]; if (entry) void show(entry.alarm, 1); }} onClear={clearQueue} />
          </div>
        )}
        width={SAFETY_DIALOG_WIDTH}
        className="safety-alarm-modal"
        onCancel={close}
        footer={footer || null}
        destroyOnHidden
        mask={{ closable: false }}
      >
        {alarm && (
          <div
            data-testid="safety-alarm-dialog"
            data-alarm-id={alarmId(alarm)}
            data-index={index}
            data-unhandled={unhandled}
            data-muted={isMuted(mutes, alarm, now().getTime())}
          >
            <SafetyAlarmFields alarm={alarm} counts={counts} files={files} />
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
        <LoadedMediaDialog key={`talk-${car.carId}`} mode="intercom" car={car} onClose={() => setTalk(false)} />
      )}
      {tts && car && <CommandDialog key={`tts-${car.carId}`} action="tts" car={car} onClose={() => setTts(false)} />}
    </>
  );
}
