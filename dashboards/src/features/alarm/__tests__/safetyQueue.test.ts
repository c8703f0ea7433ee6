// @vitest-environment jsdom
import { afterEach, describe, expect, test } from 'vitest';
import type { Alarm } from '../api';
import {
  addMute, dequeue, enqueue, isMuted, muteStorageKey, parseMutes, placeOf, popsUp, QUEUE_LIMIT, readMutes, removeMute,
  writeMutes, type QueuedAlarm,
} from '../safetyQueue';
import { createSafetyQueueStore, SEEN_LIMIT } from '../safetyQueueStore';

const alarm = (id: number, level = 1, key = 'dsm_1') => ({ id, level, key } as unknown as Alarm);
const ids = (queue: readonly QueuedAlarm[]) => queue.map((entry) => entry.alarm.id);
const NOW = Date.UTC(2026, 11, 1, 8, 0, 0);

afterEach(() => localStorage.clear());

describe('the safety alarm queue', () => {
  test('keeps the newest first', () => {
    let queue = enqueue([], alarm(1), false);
    queue = enqueue(queue, alarm(2), true);
    queue = enqueue(queue, alarm(3), false);
    expect(ids(queue)).toEqual([3, 2, 1]);
    expect(queue[1]?.muted).toBe(true);
    expect(ids(dequeue(queue, '2'))).toEqual([3, 1]);
    expect(placeOf(queue, 1)).toBe(2);
    expect(placeOf(queue, 9)).toBe(-1);
    expect(placeOf(queue, null)).toBe(-1);
  });

  test('a re-delivered push keeps the alarm at its first place, counted once and as muted as it came', () => {
    let queue = enqueue([], alarm(1), true);
    queue = enqueue(queue, alarm(2), false);
    queue = enqueue(queue, alarm(3), false);
    for (const again of [1, 2, 3]) {
      const after = enqueue(queue, alarm(again), false);
      expect(after).toBe(queue); // unchanged: nothing re-renders, no "older" step shifts
    }
    expect(ids(queue)).toEqual([3, 2, 1]);
    expect(queue[2]?.muted).toBe(true);
    expect(ids(enqueue(queue, { id: '2' } as unknown as Alarm, false))).toEqual([3, 2, 1]); // the id as text
  });

  test('the store takes a re-delivery for no new alarm, even of one handled or cleared since, until a sign-out', () => {
    const store = createSafetyQueueStore();
    let changes = 0;
    store.subscribe(() => { changes += 1; });
    expect([store.add(alarm(1), false), store.add(alarm(2), false), store.add(alarm(3), false)]).toEqual([true, true, true]);
    expect(store.add(alarm(1), false)).toBe(false);
    expect(ids(store.get())).toEqual([3, 2, 1]);
    expect(changes).toBe(3);
    store.remove(3); // handled
    expect(store.add(alarm(3), false)).toBe(false);
    store.clear(); // 清空队列
    expect(store.add(alarm(2), false)).toBe(false);
    expect(store.get()).toEqual([]);
    store.reset(); // sign-out
    expect(store.add(alarm(2), false)).toBe(true);
    expect(ids(store.get())).toEqual([2]);
  });

  test(`the store remembers the last ${SEEN_LIMIT} alarms it was pushed`, () => {
    const store = createSafetyQueueStore();
    for (let id = 1; id <= SEEN_LIMIT + 1; id += 1) store.add(alarm(id), false);
    expect(store.add(alarm(SEEN_LIMIT + 1), false)).toBe(false);
    expect(store.add(alarm(2), false)).toBe(false);
    expect(store.add(alarm(1), false)).toBe(true); // forgotten: the oldest left first
  });

  test(`drops the oldest past ${QUEUE_LIMIT}`, () => {
    let queue: readonly QueuedAlarm[] = [];
    for (let id = 1; id <= QUEUE_LIMIT + 5; id += 1) queue = enqueue(queue, alarm(id), false);
    expect(queue).toHaveLength(QUEUE_LIMIT);
    expect(queue[0]?.alarm.id).toBe(QUEUE_LIMIT + 5);
    expect(queue.at(-1)?.alarm.id).toBe(6);
  });

  test('a push pops the dialog up only while it is closed, not dismissed, and the alarm not muted', () => {
    expect(popsUp({ open: false, dismissed: false }, false)).toBe(true);
    expect(popsUp({ open: true, dismissed: false }, false)).toBe(false);
    expect(popsUp({ open: false, dismissed: true }, false)).toBe(false);
    expect(popsUp({ open: false, dismissed: false }, true)).toBe(false);
  });

  test('the store counts, removes and passes the badge\'s open request on', () => {
    const store = createSafetyQueueStore();
    let changes = 0;
    let opened = 0;
    store.subscribe(() => { changes += 1; });
    store.onOpenRequest(() => { opened += 1; });
    store.add(alarm(1), false);
    store.add(alarm(2), true);
    expect(ids(store.get())).toEqual([2, 1]);
    store.remove(2);
    store.requestOpen();
    expect(ids(store.get())).toEqual([1]);
    store.clear();
    expect(store.get()).toEqual([]);
    expect([changes, opened]).toEqual([4, 1]);
  });
});

describe('muting by level or key for a chosen time', () => {
  test('a level mute covers every key of that level until it ends', () => {
    const mutes = addMute([], 'level', '2', 5, NOW);
    expect(isMuted(mutes, alarm(1, 2, 'dsm_1'), NOW)).toBe(true);
    expect(isMuted(mutes, alarm(1, 2, 'adas_3'), NOW + 4 * 60_000)).toBe(true);
    expect(isMuted(mutes, alarm(1, 1, 'dsm_1'), NOW)).toBe(false);
    expect(isMuted(mutes, alarm(1, 2, 'dsm_1'), NOW + 5 * 60_000)).toBe(false);
  });

  test('a key mute covers both levels of that key', () => {
    const mutes = addMute([], 'key', 'dsm_1', 15, NOW);
    expect(isMuted(mutes, alarm(1, 1, 'dsm_1'), NOW)).toBe(true);
    expect(isMuted(mutes, alarm(1, 2, 'dsm_1'), NOW)).toBe(true);
    expect(isMuted(mutes, alarm(1, 1, 'dsm_2'), NOW)).toBe(false);
    expect(isMuted(mutes, { level: null, key: null }, NOW)).toBe(false);
  });

  test('muting again sets a new end, unmuting ends it, ended mutes are dropped', () => {
    let mutes = addMute([], 'level', '1', 60, NOW);
    mutes = addMute(mutes, 'level', '1', 5, NOW + 1000);
    expect(mutes).toEqual([{ by: 'level', value: '1', untilMs: NOW + 1000 + 5 * 60_000 }]);
    mutes = addMute(mutes, 'key', 'adas_1', 5, NOW + 10 * 60_000); // the level mute has ended by then
    expect(mutes).toEqual([{ by: 'key', value: 'adas_1', untilMs: NOW + 15 * 60_000 }]);
    expect(removeMute(mutes, 'key', 'adas_1')).toEqual([]);
  });

  test('kept per user in the browser; what cannot be read is dropped, never thrown', () => {
    writeMutes(7, addMute([], 'level', '2', 60, NOW));
    expect(readMutes(7, NOW + 1000)).toEqual([{ by: 'level', value: '2', untilMs: NOW + 60 * 60_000 }]);
    expect(readMutes(8, NOW)).toEqual([]);
    expect(readMutes(7, NOW + 61 * 60_000)).toEqual([]);
    expect(muteStorageKey(7)).not.toBe(muteStorageKey(8));
    expect(parseMutes('{not json', NOW)).toEqual([]);
    expect(parseMutes('{"by":"level"}', NOW)).toEqual([]);
    expect(parseMutes(JSON.stringify([{ by: 'level', value: '2', untilMs: 'soon' }, { by: 'x', value: '1', untilMs: NOW + 1 },
      { by: 'key', value: 'dsm_1', untilMs: NOW + 1 }]), NOW)).toEqual([{ by: 'key', value: 'dsm_1', untilMs: NOW + 1 }]);
  });
});
