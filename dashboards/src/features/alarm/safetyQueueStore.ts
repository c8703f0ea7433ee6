/**
 * The safety alarm queue shared by the dialog (which fills it from push 13) and the header's badge
 * (which shows its count and opens the dialog on it). One per signed-in layout; tests build their own.
 */
import { useSyncExternalStore } from 'react';
import type { Alarm } from './api';
import { dequeue, enqueue, type QueuedAlarm } from './safetyQueue';

export interface SafetyQueueStore {
  subscribe(listener: () => void): () => void;
  get(): readonly QueuedAlarm[];
  add(alarm: Alarm, muted: boolean): void;
  remove(id: string | number): void;
  clear(): void;
  /** The badge asks the dialog to open on the queue's newest alarm. */
  requestOpen(): void;
  onOpenRequest(listener: () => void): () => void;
}

export function createSafetyQueueStore(): SafetyQueueStore {
  let queue: readonly QueuedAlarm[] = [];
  const listeners = new Set<() => void>();
  const openListeners = new Set<() => void>();
  const set = (next: readonly QueuedAlarm[]) => {
    queue = next;
    listeners.forEach((listener) => listener());
  };
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    get: () => queue,
    add: (alarm, muted) => set(enqueue(queue, alarm, muted)),
    remove: (id) => set(dequeue(queue, id)),
    clear: () => set([]),
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
