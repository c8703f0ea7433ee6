/**
 * The live video grid's windows and what they play (console-spec §4 "live video window"): start =
 * check the device is online, allocate a window, 9101, playing; stop = 9102, then the window is
 * cleared. Several channels start in turn (100 ms each; a restart waits 500 ms). Every window still
 * playing is stopped when the grid goes away, and when its page stayed hidden (another console tab,
 * a hidden browser tab) for the media server's grace: the terminals pay per MB.
 */
import { App } from 'antd';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { startStream, stopStream, type StreamStart } from './api';
import { DATA_TYPE, RESTART_DELAY_MS, START_DELAY_MS, type GridLayout, type StreamType } from './constants';
import { stopGraceMs } from './hiddenStop';
import { liveStreamingSupported } from './playerController';
import { terminalMayStream, type StartRefusal } from './startOutcome';
import { useStopWhenHidden } from './useStopWhenHidden';
import { allocate, StartQueue, type Refusal, type VideoEntry } from './windows';

export interface WindowSlot {
  entry: VideoEntry;
  /** The start answer; null while 9101 is on its way. */
  stream: StreamStart | null;
  /** The terminal refused the start or sent nothing (startOutcome.ts): the window says why. */
  refused?: StartRefusal;
}

export interface VideoGrid {
  layout: GridLayout;
  setLayout: (layout: GridLayout) => void;
  slots: (WindowSlot | null)[];
  selected: number;
  select: (index: number) => void;
  /** Starts each entry in turn; `online(deviceId)` is the one online rule. Resolves when all were asked. */
  open: (entries: VideoEntry[], online: (deviceId: number) => boolean) => Promise<void>;
  close: (index: number) => Promise<void>;
  closeWhere: (drop: (entry: VideoEntry) => boolean) => Promise<void>;
  switchStream: (index: number, streamType: StreamType) => void;
  restart: (index: number) => void;
  /** The window's start was refused (or no media came): shown in the window, the stream released. */
  refuse: (index: number, refusal: StartRefusal) => void;
}

const REFUSAL_KEYS: Record<Refusal, string> = { playing: 'start.playing', offline: 'start.offline', full: 'start.full' };

export function useVideoGrid(initialLayout: GridLayout, fixedLayout = false): VideoGrid {
  const { t } = useTranslation('video');
  const { message } = App.useApp();
  const [layout, setLayoutState] = useState<GridLayout>(initialLayout);
  const [slots, setSlots] = useState<(WindowSlot | null)[]>([]);
  const [selected, select] = useState(0);
  // The source of truth for allocation: several opens in one tick must see each other's windows.
  const current = useRef<{ slots: (WindowSlot | null)[]; layout: GridLayout }>({ slots: [], layout: initialLayout });
  const queue = useMemo(() => new StartQueue(), []);

  const commit = useCallback((next: (WindowSlot | null)[], nextLayout?: GridLayout) => {
    current.current = { slots: next, layout: nextLayout ?? current.current.layout };
    setSlots(next);
    if (nextLayout !== undefined) setLayoutState(nextLayout);
  }, []);

  const setLayout = useCallback((next: GridLayout) => {
    current.current = { ...current.current, layout: next };
    setLayoutState(next);
  }, []);

  const replaceSlot = useCallback((key: string, update: (slot: WindowSlot) => WindowSlot | null) => {
    const next = current.current.slots.map((slot) => (slot && slot.entry.key === key ? update(slot) : slot));
    commit(next);
  }, [commit]);

  const startOne = useCallback(async (entry: VideoEntry) => {
    if (!current.current.slots.some((s) => s?.entry.key === entry.key)) return; // closed while queued
    const reply = await startStream(entry.carId !== null ? { carId: entry.carId, deviceId: entry.deviceId } : { deviceId: entry.deviceId }, {
      channelId: entry.channelId,
      dataType: entry.dataType === DATA_TYPE.listen ? DATA_TYPE.listen : (entry.dataType as 0 | 1),
      streamType: entry.streamType,
    });
    if (reply.code === 0 && reply.data) {
      const stream = reply.data;
      replaceSlot(entry.key, (slot) => ({ ...slot, stream }));
    } else {
      replaceSlot(entry.key, () => null); // the refusal was shown by the failure handler
    }
  }, [replaceSlot]);

  const open = useCallback(async (entries: VideoEntry[], online: (deviceId: number) => boolean) => {
    if (!liveStreamingSupported()) {
      void message.error({ content: t('start.unsupported'), key: 'video-unsupported' });
      return;
    }
    let last: Promise<void> = Promise.resolve();
    for (const entry of entries) {
      const { slots: now, layout: shown } = current.current;
      const placed = allocate(now.map((s) => s?.entry ?? null), shown, entry, online(entry.deviceId), entries.length === 1 ? selected : undefined);
      if (!placed.ok) {
        void message.warning({ content: t(REFUSAL_KEYS[placed.refusal]), key: `refusal-${placed.refusal}` });
        if (placed.refusal === 'full') break;
        continue;
      }
      const next = placed.windows.map((e, i) => (e ? (now[i]?.entry.key === e.key ? now[i] : { entry: e, stream: null }) : null));
      commit(next, fixedLayout ? undefined : placed.layout);
      last = queue.add(START_DELAY_MS, () => startOne(entry));
    }
    await last;
  }, [commit, fixedLayout, message, queue, selected, startOne, t]);

  const stopSlot = useCallback(async (slot: WindowSlot) => {
    const { entry, stream, refused } = slot;
    // A terminal that refused the start streams nothing: no 9102 for it (it would refuse that too).
    if (!stream || (refused && !terminalMayStream(refused))) return;
    const target = entry.carId !== null ? { carId: entry.carId, deviceId: entry.deviceId } : { deviceId: entry.deviceId };
    await stopStream(target, stream.streamId, entry.channelId, stream.kind);
  }, []);

  const close = useCallback(async (index: number) => {
    const slot = current.current.slots[index];
    if (!slot) return;
    await stopSlot(slot);
    replaceSlot(slot.entry.key, () => null);
  }, [replaceSlot, stopSlot]);

  const closeWhere = useCallback(async (drop: (entry: VideoEntry) => boolean) => {
    const doomed = current.current.slots.filter((s): s is WindowSlot => !!s && drop(s.entry));
    await Promise.all(doomed.map(stopSlot));
    commit(current.current.slots.map((s) => (s && drop(s.entry) ? null : s)));
  }, [commit, stopSlot]);

  const restartWith = useCallback((index: number, streamType?: StreamType) => {
    const slot = current.current.slots[index];
    if (!slot) return;
    const entry = { ...slot.entry, streamType: streamType ?? slot.entry.streamType };
    void stopSlot(slot);
    const next = [...current.current.slots];
    next[index] = { entry, stream: null };
    commit(next);
    void queue.add(RESTART_DELAY_MS, () => startOne(entry));
  }, [commit, queue, startOne, stopSlot]);

  // The grid going away stops what it plays.
  useEffect(() => () => {
    queue.clear();
    for (const slot of current.current.slots) if (slot) void stopSlot(slot);
  }, [queue, stopSlot]);

  // A page off screen for the grace stops what it plays (the windows are emptied).
  const stopAll = useCallback(() => {
    queue.clear();
    const playing = current.current.slots.filter((s): s is WindowSlot => !!s);
    commit(current.current.slots.map(() => null));
    for (const slot of playing) void stopSlot(slot);
  }, [commit, queue, stopSlot]);
  useStopWhenHidden(slots.some(Boolean), stopGraceMs(slots.map((s) => s?.stream)), stopAll);

  return {
    layout,
    setLayout,
    slots,
    selected,
    select,
    open,
    close,
    closeWhere,
    switchStream: (index, streamType) => restartWith(index, streamType),
    restart: (index) => restartWith(index),
    refuse: (index, refusal) => {
      const slot = current.current.slots[index];
      if (!slot || slot.refused) return;
      replaceSlot(slot.entry.key, (s) => ({ ...s, refused: refusal }));
      if (terminalMayStream(refusal)) void stopSlot({ ...slot, refused: undefined });
    },
  };
}
