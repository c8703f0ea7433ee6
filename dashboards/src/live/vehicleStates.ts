/**
 * Online flag and business state per device, fed by the server's device state (car rows, the bulk
 * last-positions read) and by pushes type 1 and 6; position batches only refresh the business state
 * of a device that is already online. A position is never proof of being online: a REST read of an
 * offline vehicle's last fix must not turn it online (the tree once jumped from 200/205 to 205/205).
 * Listeners are notified at most once per `throttleMs`, so the vehicle tree recolours and recounts
 * about once a second however busy the socket is.
 */
import { BIZ_NO_SIGNAL, BIZ_OFFLINE, DEVICE_STATE_ONLINE, isOnlineBizState, normaliseBizState } from './bizState';
import { PUSH_BIZ_STATE, PUSH_ONLINE_OFFLINE, type PushMessage } from './types';

export interface VehicleState {
  online: boolean;
  bizState: number;
}

/**
 * THE online rule of the console (tree counts and tabs, popup, vehicle table): the device's own
 * state says online and its business state is not offline. The dashboard's counters come from the
 * server, which counts with the same rule (warehouse/queries/fleet_figures.py).
 */
export function isVehicleOnline(state: VehicleState | undefined | null): boolean {
  return !!state && state.online && state.bizState !== BIZ_OFFLINE;
}

/**
 * THE alarming rule (tree tab and counts, vehicle table, cockpits, dashboard): online by the rule above and
 * its last fix carries an alarm bit. An offline vehicle's last fix is old news, not an alarm now. The
 * server counts with the same rule (warehouse/queries/fleet_figures.py).
 */
export function isVehicleAlarming(state: VehicleState | undefined | null, position: { alarm?: number } | undefined | null): boolean {
  return isVehicleOnline(state) && (position?.alarm ?? 0) !== 0;
}

/** The business state to show (colour, label): offline whenever the vehicle is not online. */
export function shownBizState(state: VehicleState | undefined | null): number {
  return state && isVehicleOnline(state) ? state.bizState : BIZ_OFFLINE;
}

/** A state from a device row: device state (3 = online) and business state, as the server stores them. */
export function stateOfDevice(deviceState: unknown, bizState: unknown): VehicleState {
  const online = Number(deviceState) === DEVICE_STATE_ONLINE;
  const biz = normaliseBizState(bizState);
  return { online, bizState: online ? biz : BIZ_OFFLINE };
}

type Listener = () => void;

export class VehicleStateStore {
  private readonly byDevice = new Map<number, VehicleState>();
  private readonly listeners = new Set<Listener>();
  private version = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly throttleMs = 1000) {}

  get(deviceId: number): VehicleState | undefined {
    return this.byDevice.get(deviceId);
  }

  getVersion = (): number => this.version;

  /** Initial states, e.g. from carView rows; does not override a state a push already set. */
  seed(entries: Iterable<[number, VehicleState]>): void {
    for (const [deviceId, state] of entries) {
      if (!this.byDevice.has(deviceId)) this.byDevice.set(deviceId, state);
    }
    this.changed();
  }

  /** Replaces every known state (a REST resync after a reconnect). */
  replaceAll(entries: Iterable<[number, VehicleState]>): void {
    this.byDevice.clear();
    for (const [deviceId, state] of entries) this.byDevice.set(deviceId, state);
    this.changed();
  }

  /** Handles push types 1 (online/offline) and 6 (business state); returns whether it was one of them. */
  applyPush(message: PushMessage): boolean {
    const data = message.data ?? {};
    const deviceId = Number(data.deviceId);
    if (!Number.isFinite(deviceId)) return false;
    const current = this.byDevice.get(deviceId) ?? { online: false, bizState: BIZ_NO_SIGNAL };
    if (message.type === PUSH_ONLINE_OFFLINE) {
      const online = Number(data.state) === 1;
      const bizState = online ? (current.bizState === BIZ_OFFLINE ? BIZ_NO_SIGNAL : current.bizState) : BIZ_OFFLINE;
      this.set(deviceId, { online, bizState });
      return true;
    }
    if (message.type === PUSH_BIZ_STATE) {
      const bizState = Number(data.bizState);
      if (!Number.isFinite(bizState)) return false;
      const online = bizState !== BIZ_OFFLINE && (current.online || isOnlineBizState(bizState));
      this.set(deviceId, { online, bizState });
      return true;
    }
    return false;
  }

  /**
   * A position tells the business state of a device the server has said is online; it never makes
   * a device online (a REST read or a late backlog fix of an offline vehicle is still a position).
   */
  applyPositions(batch: readonly { deviceId: number; bizState: number }[]): void {
    let touched = false;
    for (const p of batch) {
      const current = this.byDevice.get(p.deviceId);
      if (!current || !current.online || current.bizState === p.bizState || p.bizState === BIZ_OFFLINE) continue;
      this.byDevice.set(p.deviceId, { online: true, bizState: normaliseBizState(p.bizState) });
      touched = true;
    }
    if (touched) this.changed();
  }

  subscribe = (listener: Listener): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.listeners.clear();
  }

  private set(deviceId: number, state: VehicleState): void {
    this.byDevice.set(deviceId, state);
    this.changed();
  }

  private changed(): void {
    if (this.timer) return;
    const notify = () => {
      this.timer = null;
      this.version += 1;
      for (const listener of this.listeners) listener();
    };
    if (this.throttleMs <= 0) notify();
    else this.timer = setTimeout(notify, this.throttleMs);
  }
}
