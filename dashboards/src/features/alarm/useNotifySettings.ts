/**
 * The caller's notification settings, held in one place for every notice of the console and the settings
 * screens: the rules in effect from alarmLevelUserSettingRuleView (console-spec §7) and the enterprise
 * switches from GET /api/alarm/notify/settings.json (`fetchNotifySettings`). Re-read every 5 minutes (as
 * the notice overview) and whenever a settings screen saves.
 */
import { useEffect, useSyncExternalStore } from 'react';
import { session } from '../../auth/session';
import { fetchNotifySettings, type NotifySettings } from './api';

export const SETTINGS_REFRESH_MS = 5 * 60 * 1000;

let current: NotifySettings | null = null;
const listeners = new Set<() => void>();
let users = 0;
let timer: ReturnType<typeof setInterval> | null = null;

/** Re-reads the settings now; the settings answered, or null when the read failed (the last ones stay). */
export async function reloadNotifySettings(): Promise<NotifySettings | null> {
  const next = await fetchNotifySettings(session.get().user?.id);
  if (next) {
    current = next;
    for (const listener of listeners) listener();
  }
  return next;
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
