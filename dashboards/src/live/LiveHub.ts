/**
 * The one owner of the push socket (house style 9, after traccar-web's SocketController): connects
 * STOMP with the bearer token, subscribes /user/{enterpriseId}/positions and /message, coalesces
 * position bursts into the PositionStore, feeds pushes 1 and 6 into the VehicleStateStore, reconnects
 * with exponential backoff, checks liveness every 30 s, and after every reconnect asks its
 * `onReconnect` listeners to resync over REST (pushes sent while disconnected are lost).
 */
import { LANGUAGE_HEADER } from '../api/language';
import { backoffDelay, type BackoffOptions } from './backoff';
import { createCoalescer, type Coalescer, type Scheduler } from './coalescer';
import { LatencyRecorder } from './latency';
import { positionsFromRows } from './lastPositions';
import { PositionStore } from './positionStore';
import type { StompClientLike, StompSubscriptionLike } from './stompClient';
import type { LivePosition, PushMessage } from './types';
import { shownBizState, VehicleStateStore, type VehicleState } from './vehicleStates';

export type LiveStatus = 'idle' | 'connecting' | 'connected' | 'reconnecting' | 'stopped';

export interface LiveHubOptions {
  url: string;
  enterpriseId: number;
  getToken: () => string | null | undefined;
  /** The whole Authorization header of CONNECT, when the session decides it (console-spec §7: Basic
   * userName:password under authorization protocol 1); without it, `Bearer <getToken()>`. */
  getAuthorization?: () => string | null | undefined;
  /** The console's language, sent in CONNECT as X-Fleet-Language: the server's push texts (alarm
   * names, command results) come in it, as its HTTP replies do. */
  getLanguage?: () => string | null | undefined;
  createClient: (url: string) => StompClientLike;
  livenessMs?: number;
  /** Longest wait between two applied batches (the page's coalescing; default 100 ms). */
  coalesceMs?: number;
  /** The wait after a batch is its apply time times this, up to `coalesceMs` (default 8: applying
   * takes at most ~1/8 of the time; a quiet map applies on the next frame). */
  coalesceCostFactor?: number;
  backoff?: BackoffOptions;
  schedule?: Scheduler;
  statesThrottleMs?: number;
}

type ReconnectListener = (disconnectedAt: number) => void | Promise<void>;

export class LiveHub {
  readonly positions = new PositionStore();
  readonly states: VehicleStateStore;
  readonly latency = new LatencyRecorder();
  status: LiveStatus = 'idle';

  private client: StompClientLike | null = null;
  private subscriptions: StompSubscriptionLike[] = [];
  private readonly coalescer: Coalescer<LivePosition>;
  private readonly pushListeners = new Set<(message: PushMessage) => void>();
  private readonly reconnectListeners = new Set<ReconnectListener>();
  private readonly statusListeners = new Set<(status: LiveStatus) => void>();
  private attempts = 0;
  /** The language sent in the last CONNECT: the server localises a connection's pushes in it. */
  private sentLanguage: string | null = null;
  private everConnected = false;
  private disconnectedAt: number | null = null;
  private missedChecks = 0;
  private livenessTimer: ReturnType<typeof setInterval> | null = null;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly now = () => Date.now();

  constructor(private readonly options: LiveHubOptions) {
    this.states = new VehicleStateStore(options.statesThrottleMs ?? 1000);
    this.coalescer = createCoalescer<LivePosition>({
      keyOf: (p) => p.deviceId,
      isNewer: (candidate, current) => candidate.timeMs >= current.timeMs,
      flush: (batch) => this.applyPositions(batch),
      minIntervalMs: options.coalesceMs ?? 100,
      costFactor: options.coalesceCostFactor ?? 8,
      schedule: options.schedule,
      now: this.now,
    });
  }

  start(): void {
    if (this.client) return;
    const client = this.options.createClient(this.options.url);
    this.client = client;
    // stompjs' own reconnect loop is off: the hub reconnects with jittered exponential backoff.
    client.reconnectDelay = 0;
    client.beforeConnect = () => {
      // The token is read on every attempt: it is refreshed every few minutes.
      const token = this.options.getToken();
      const authorization = this.options.getAuthorization ? this.options.getAuthorization() : token ? `Bearer ${token}` : null;
      const language = this.options.getLanguage?.();
      this.sentLanguage = language ?? null;
      client.connectHeaders = {
        ...(authorization ? { Authorization: authorization } : {}),
        ...(language ? { [LANGUAGE_HEADER]: language } : {}),
      };
    };
    client.onConnect = () => this.handleConnect(client);
    client.onWebSocketClose = () => this.handleClose(client);
    // An ERROR frame's text in the session's language (its localMessage header, api/stomp.py), the Chinese
    // message header when a server sent none.
    client.onStompError = (frame) => {
      console.warn('[live] STOMP error', frame.headers?.localMessage ?? frame.headers?.message ?? frame.body);
    };
    this.setStatus('connecting');
    client.activate();
    this.livenessTimer = setInterval(() => this.checkLiveness(), this.options.livenessMs ?? 30000);
  }

  stop(): void {
    if (this.livenessTimer !== null) clearInterval(this.livenessTimer);
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    this.livenessTimer = null;
    this.reconnectTimer = null;
    this.coalescer.dispose();
    this.states.dispose();
    const client = this.client;
    this.client = null;
    if (client?.connected) for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.subscriptions = [];
    if (client) void client.deactivate();
    this.setStatus('stopped');
  }

  /**
   * The console's language changed: the server localises pushes per connection (CONNECT's
   * X-Fleet-Language), so a connected socket in another language handshakes again and the next pushes
   * come in the new one; the reconnect listeners resync over REST what was pushed meanwhile. A socket
   * that is down sends the current language at its next CONNECT anyway.
   */
  refreshLanguage(): void {
    const client = this.client;
    if (!client || !client.connected) return;
    if ((this.options.getLanguage?.() ?? null) === this.sentLanguage) return;
    this.disconnectedAt = this.now();
    this.subscriptions = [];
    void Promise.resolve(client.deactivate()).then(() => {
      if (this.client === client && !client.connected) client.activate();
    });
  }

  onPush(listener: (message: PushMessage) => void): () => void {
    this.pushListeners.add(listener);
    return () => {
      this.pushListeners.delete(listener);
    };
  }

  /** Called after each reconnect (not the first connect) with the time the socket was lost. */
  onReconnect(listener: ReconnectListener): () => void {
    this.reconnectListeners.add(listener);
    return () => {
      this.reconnectListeners.delete(listener);
    };
  }

  onStatus(listener: (status: LiveStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => {
      this.statusListeners.delete(listener);
    };
  }

  /** Feeds REST positions through the same path as pushed ones (already normalised). */
  ingest(positions: readonly LivePosition[]): void {
    this.coalescer.add(positions);
  }

  /**
   * The server's word on every device (the bulk last-positions read, on load and after each
   * reconnect): replaces all states, recolours the positions already shown, feeds the new ones.
   */
  resync(states: Iterable<[number, VehicleState]>, positions: readonly LivePosition[]): void {
    this.states.replaceAll(states);
    this.recolour(Array.from(this.positions.all(), (p) => p.deviceId));
    this.ingest(positions);
  }

  /**
   * Liveness (every 30 s): a socket that is down with no reconnect pending (a lost timer, a
   * browser that slept) is reconnected now; a connected one resets the count.
   */
  checkLiveness(): void {
    if (!this.client) return;
    if (this.client.connected) {
      this.missedChecks = 0;
      return;
    }
    this.missedChecks += 1;
    if (this.reconnectTimer === null || this.missedChecks >= 2) this.reconnectNow();
  }

  private scheduleReconnect(): void {
    if (this.reconnectTimer !== null) return;
    const delay = backoffDelay(this.attempts - 1, this.options.backoff);
    this.reconnectTimer = setTimeout(() => this.reconnectNow(), delay);
  }

  private reconnectNow(): void {
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.missedChecks = 0;
    const client = this.client;
    if (!client || client.connected) return;
    void Promise.resolve(client.deactivate()).then(() => {
      if (this.client === client) client.activate();
    });
  }

  private handleConnect(client: StompClientLike): void {
    if (client !== this.client) return;
    this.attempts = 0;
    this.missedChecks = 0;
    const base = `/user/${this.options.enterpriseId}`;
    this.subscriptions = [
      client.subscribe(`${base}/positions`, (message) => this.handlePositions(message.body)),
      client.subscribe(`${base}/message`, (message) => this.handleMessage(message.body)),
    ];
    this.setStatus('connected');
    const lostAt = this.disconnectedAt;
    this.disconnectedAt = null;
    if (this.everConnected && lostAt !== null) {
      for (const listener of this.reconnectListeners) {
        Promise.resolve(listener(lostAt)).catch((error: unknown) => console.warn('[live] resync failed', error));
      }
    }
    this.everConnected = true;
  }

  private handleClose(client: StompClientLike): void {
    if (client !== this.client) return;
    this.subscriptions = [];
    if (this.disconnectedAt === null) this.disconnectedAt = this.now();
    this.attempts += 1;
    this.setStatus('reconnecting');
    this.scheduleReconnect();
  }

  private handlePositions(body: string): void {
    const parsed = safeParse(body) as { type?: string; fields?: unknown; rows?: unknown } | null;
    if (!parsed || parsed.type !== 'positions' || !Array.isArray(parsed.fields) || !Array.isArray(parsed.rows)) return;
    this.coalescer.add(positionsFromRows(parsed.fields as string[], parsed.rows as unknown[][]).positions);
  }

  private handleMessage(body: string): void {
    const parsed = safeParse(body) as PushMessage | null;
    if (!parsed || typeof parsed.type !== 'number') return;
    if (this.states.applyPush(parsed)) this.recolour([Number(parsed.data?.deviceId)]);
    for (const listener of this.pushListeners) listener(parsed);
  }

  private applyPositions(batch: LivePosition[]): void {
    this.states.applyPositions(batch);
    // A position shows its device's state (an offline vehicle's last fix is drawn offline).
    this.positions.apply(batch.map((p) => this.withShownState(p)));
    const appliedAt = this.now();
    for (const p of batch) {
      if (p.sentAtMs !== undefined) this.latency.record(appliedAt - p.sentAtMs);
    }
  }

  private withShownState(position: LivePosition): LivePosition {
    const state = this.states.get(position.deviceId);
    if (!state) return position;
    const bizState = shownBizState(state);
    return bizState === position.bizState ? position : { ...position, bizState };
  }

  /** Re-applies the stored positions of these devices with their current state (marker colours). */
  private recolour(deviceIds: readonly number[]): void {
    const changed: LivePosition[] = [];
    for (const id of deviceIds) {
      const current = this.positions.get(id);
      if (!current) continue;
      const shown = this.withShownState(current);
      if (shown !== current) changed.push(shown);
    }
    if (changed.length > 0) this.positions.apply(changed);
  }

  private setStatus(status: LiveStatus): void {
    if (this.status === status) return;
    this.status = status;
    for (const listener of this.statusListeners) listener(status);
  }
}

function safeParse(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
}
