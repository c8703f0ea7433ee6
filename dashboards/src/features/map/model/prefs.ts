/** The user's map choices (base layer, style filter, clustering), kept in localStorage. */
import { MAP_PREFS_STORAGE_KEY, TICKED_STORAGE_KEY } from './constants';

export interface MapPrefs {
  baseLayer?: string;
  styleFilter: string;
  clustering: boolean;
  /** Pan the map with the selected vehicle. */
  follow: boolean;
}

const DEFAULT_PREFS: MapPrefs = { styleFilter: 'none', clustering: true, follow: false };

export function readPrefs(): MapPrefs {
  try {
    const raw = localStorage.getItem(MAP_PREFS_STORAGE_KEY);
    return raw ? { ...DEFAULT_PREFS, ...(JSON.parse(raw) as Partial<MapPrefs>) } : { ...DEFAULT_PREFS };
  } catch {
    return { ...DEFAULT_PREFS };
  }
}

export function writePrefs(prefs: MapPrefs): void {
  try {
    localStorage.setItem(MAP_PREFS_STORAGE_KEY, JSON.stringify(prefs));
  } catch {
    // storage full or disabled: the choice lasts for this page only
  }
}

/** Ticked vehicle keys (c_{carId}_{deviceId}), kept for the browser tab's session. */
export function readTicked(): string[] {
  try {
    const raw = sessionStorage.getItem(TICKED_STORAGE_KEY);
    const value: unknown = raw ? JSON.parse(raw) : [];
    return Array.isArray(value) ? value.filter((k): k is string => typeof k === 'string') : [];
  } catch {
    return [];
  }
}

/** Whether this tab has ticked anything yet (the map's first open shows the fleet instead). */
export function hasStoredTicked(): boolean {
  try {
    return sessionStorage.getItem(TICKED_STORAGE_KEY) !== null;
  } catch {
    return false;
  }
}

export function writeTicked(keys: readonly string[]): void {
  try {
    sessionStorage.setItem(TICKED_STORAGE_KEY, JSON.stringify(keys));
  } catch {
    // see writePrefs
  }
}
