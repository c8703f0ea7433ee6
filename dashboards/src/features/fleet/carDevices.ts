import type { TFunction } from 'i18next';

/** A car's devices being edited: the fitted device ids and the master (one of them, or null). */
export interface FittedDevices {
  deviceIds: number[];
  master: number | null;
}

/** Fits a device; the first one fitted becomes the master. */
export function attach(state: FittedDevices, id: number): FittedDevices {
  if (state.deviceIds.includes(id)) return state;
  return { deviceIds: [...state.deviceIds, id], master: state.master ?? id };
}

/** Removes a device; removing the master makes the first remaining device the master. */
export function detach(state: FittedDevices, id: number): FittedDevices {
  const deviceIds = state.deviceIds.filter((d) => d !== id);
  const master = state.master === id ? (deviceIds[0] ?? null) : state.master;
  return { deviceIds, master };
}

export function makeMaster(state: FittedDevices, id: number): FittedDevices {
  return state.deviceIds.includes(id) ? { ...state, master: id } : state;
}

/** "1,2,33" -> "前方, 驾驶员, 音频33" (platform-spec §9 channel names; an unknown number stays a number). */
export function channelNames(t: TFunction, channels: unknown): string {
  if (typeof channels !== 'string' || channels === '') return '';
  return channels
    .split(',')
    .map((n) => t(`fleet:channel.${n.trim()}`, { defaultValue: n.trim() }))
    .join(', ');
}
