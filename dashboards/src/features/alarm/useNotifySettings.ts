/**
 * The caller's notification settings (GET /api/alarm/notify/settings.json), shared by every notice of
 * the console and re-read every 5 minutes (as the notice overview) and when the settings screen saves.
 */
import { useEffect, useSyncExternalStore } from 'react';
import { fetchNotifySettings, type NotifySettings } from './api';

export const SETTINGS_REFRESH_MS = 5 * 60 * 1000;

let current: NotifySettings | null = null;
const listeners = new Set<() => void>();
let users = 0;
let timer: ReturnType<typeof setInterval> | null = null;

/** Re-reads the settings now (the notification-rule screen calls this after saving). */
export async function reloadNotifySettings(): Promise<void> {
  const next = await fetchNotifySettings();
  if (next) {
    current = next;
    for (const listener of listeners) listener();
  }
}

export function currentNotifySettings(): NotifySettings | null {
  return current;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useNotifySettings(): NotifySettings | null {
  useEffect(() => {
    users += 1;
    if (users === 1) {
      void reloadNotifySettings();
      timer = setInterval(() => void reloadNotifySettings(), SETTINGS_REFRESH_MS);
    }
    return () => {
      users -= 1;
      if (users === 0 && timer !== null) {
        clearInterval(timer);
        timer = null;
      }
    };
  }, []);
  return useSyncExternalStore(subscribe, currentNotifySettings);
}
