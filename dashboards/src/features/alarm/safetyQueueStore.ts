/**
 * The safety alarm queue shared by the dialog (which fills it from push 13) and the header's badge
 * (which shows its count and opens the dialog on it). One per signed-in layout; tests build their own.
 */
import { useSyncExternalStore } from 'react';
import type { Alarm } from './api';
import { dequeue, enqueue, type QueuedAlarm } from './safetyQueue';

/**
 * How many pushed alarm ids the store remembers: pushes are delivered at least once, and a re-delivery of
 * an alarm handled, ignored or cleared since must not queue it (nor pop the dialog up) again.
 */
export const SEEN_LIMIT = 1000;

export interface SafetyQueueStore {
  subscribe(listener: () => void): () => void;
  get(): readonly QueuedAlarm[];
  /** Queues a pushed alarm; false (and nothing changes) when its id was pushed before: a re-delivery. */
  add(alarm: Alarm, muted: boolean): boolean;
  remove(id: string | number): void;
  /** Empties the queue (清空队列); the alarms stay known, so their re-delivery stays out. */
  clear(): void;
  /** Empties the queue and forgets the alarms (a sign-out: the next user starts afresh). */
  reset(): void;
  /** The badge asks the dialog to open on the queue's newest alarm. */
  requestOpen(): void;
  onOpenRequest(listener: () => void): () => void;
}

export function createSafetyQueueStore(): SafetyQueueStore {
  let queue: readonly QueuedAlarm[] = [];
  const seen = new Set<string>();
  const listeners = new Set<() => void>();
  const openListeners = new Set<() => void>();
  const set = (next: readonly QueuedAlarm[]) => {
    if (next === queue) return;
    queue = next;
    listeners.forEach((listener) => listener());
  };
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    get: () => queue,
    add(alarm, muted) {
      const id = String(alarm.id);
      if (seen.has(id)) return false;
      seen.add(id);
      if (seen.size > SEEN_LIMIT) seen.delete(seen.values().next().value as string); // the oldest known
      set(enqueue(queue, alarm, muted));
      return true;
    },
    remove: (id) => set(dequeue(queue, id)),
    clear: () => set([]),
    reset() {
      seen.clear();
      set([]);
    },
    requestOpen: () => openListeners.forEach((listener) => listener()),
    onOpenRequest(listener) {
      openListeners.add(listener);
      return () => void openListeners.delete(listener);
    },
  };
}

/** The console's queue (the layout's dialog and header badge). */
export const safetyQueue = createSafetyQueueStore();

export function useSafetyQueue(store: SafetyQueueStore = safetyQueue): readonly QueuedAlarm[] {
  return useSyncExternalStore(store.subscribe, store.get, store.get);
}
