/**
 * The notice a vehicle state push announces (console-spec §7 push 1 online/offline, push 6 business state
 * change; data in docs/topics.md): only for a vehicle the operator has ticked on the map. Pure.
 */
import { BIZ_OFFLINE, normaliseBizState } from '../../../live/bizState';
import { PUSH_BIZ_STATE, PUSH_ONLINE_OFFLINE, type PushMessage } from '../../../live/types';

export interface StateNotice {
  deviceId: number;
  plate: string;
  /** Came online, went offline, or a new business state (1 driving ... 4 no signal). */
  change: 'online' | 'offline' | 'bizState';
  bizState: number | null;
}

/** The notice of `push` for the ticked vehicles (device id -> plate); null for any other push or vehicle. */
export function stateNotice(push: PushMessage, ticked: ReadonlyMap<number, string>): StateNotice | null {
  if ((push.type !== PUSH_ONLINE_OFFLINE && push.type !== PUSH_BIZ_STATE) || !push.data) return null;
  const deviceId = Number(push.data.deviceId);
  const plate = ticked.get(deviceId);
  if (!Number.isFinite(deviceId) || plate === undefined) return null;
  const shown = plate || (typeof push.data.plateNumber === 'string' ? push.data.plateNumber : '') || String(deviceId);
  if (push.type === PUSH_ONLINE_OFFLINE) {
    return { deviceId, plate: shown, change: Number(push.data.state) === 1 ? 'online' : 'offline', bizState: null };
  }
  if (push.data.bizState === null || push.data.bizState === undefined || push.data.bizState === '') return null;
  const bizState = normaliseBizState(push.data.bizState);
  return bizState === BIZ_OFFLINE
    ? { deviceId, plate: shown, change: 'offline', bizState: null }
    : { deviceId, plate: shown, change: 'bizState', bizState };
}
