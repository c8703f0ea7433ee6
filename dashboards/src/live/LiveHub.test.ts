import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LiveHub } from './LiveHub';
import type { Scheduler } from './coalescer';
import type { StompClientLike, StompFrameLike, StompMessageLike } from './stompClient';
import { isVehicleOnline } from './vehicleStates';

/** An in-memory STOMP client: the test decides when the socket connects and drops. */
class FakeStompClient implements StompClientLike {
  connectHeaders: Record<string, string> = {};
  reconnectDelay = 5000;
  connected = false;
  active = false;
  activations = 0;
  subscriptions = new Map<string, (message: StompMessageLike) => void>();
  onConnect: (frame: StompFrameLike) => void = () => {};
  onStompError: (frame: StompFrameLike) => void = () => {};
  onWebSocketClose: (event: unknown) => void = () => {};
  beforeConnect: () => void | Promise<void> = () => {};

  activate(): void {
    this.active = true;
    this.activations += 1;
    void this.beforeConnect();
  }

  deactivate(): void {
    this.active = false;
    this.connected = false;
  }

  subscribe(destination: string, callback: (message: StompMessageLike) => void) {
    this.subscriptions.set(destination, callback);
    return { unsubscribe: () => this.subscriptions.delete(destination) };
  }

  /** The broker accepted CONNECT. */
  open(): void {
    this.subscriptions.clear();
    this.connected = true;
    this.onConnect({ headers: {}, body: '' });
  }

  /** The socket closed (network loss, server restart). */
  drop(): void {
    this.connected = false;
    this.subscriptions.clear();
    this.onWebSocketClose({});
  }

  deliver(destination: string, body: unknown): void {
    this.subscriptions.get(destination)?.({ body: JSON.stringify(body) });
  }
}

const immediate: Scheduler = (run) => {
  run();
  return () => {};
};

function makeHub(token = 'tok-1') {
  const client = new FakeStompClient();
  let current = token;
  const hub = new LiveHub({
    url: 'ws://example/wss/stomp',
    enterpriseId: 42,
    getToken: () => current,
    createClient: () => client,
    schedule: immediate,
    statesThrottleMs: 0,
    backoff: { baseMs: 1000, maxMs: 30000, jitter: 0 },
  });
  return { hub, client, setToken: (t: string) => (current = t) };
}

const position = (deviceId: number, time: string, lng = 116.4) => ({
  deviceId,
  carId: deviceId + 100,
  lng,
  lat: 39.9,
  direction: 90,
  speed: 40,
  time,
  bizState: 1,
  acc: 1,
  alarm: 0,
});

/** A body on /user/{id}/positions: the columns and rows of fleet/position_wire.py (as streams/console.py sends). */
const pushed = (positions: ReturnType<typeof position>[]) => ({
  type: 'positions',
  fields: ['carId', 'deviceId', 'plateNumber', 'time', 'lng', 'lat', 'speed', 'direction', 'altitude', 'mileage',
    'oilmass', 'alarmType', 'status', 'online', 'bizState', 'sentAt'],
  rows: positions.map((p) => [p.carId, p.deviceId, null, Date.parse(p.time), p.lng, p.lat, p.speed, p.direction,
    50, null, null, p.alarm, p.acc, 1, p.bizState, Date.parse(p.time) + 500]),
});

describe('LiveHub (the one socket owner)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('connects with the bearer token and subscribes the enterprise destinations', () => {
    const { hub, client } = makeHub();
    hub.start();
    expect(client.connectHeaders).toEqual({ Authorization: 'Bearer tok-1' });
    client.open();
    expect([...client.subscriptions.keys()].sort()).toEqual(['/user/42/message', '/user/42/positions']);
    expect(hub.status).toBe('connected');
    hub.stop();
  });

  it('sends the Authorization the session decides (Basic under authorization protocol 1)', () => {
    const client = new FakeStompClient();
    const hub = new LiveHub({
      url: 'http://example/wss/stomp', enterpriseId: 42, getToken: () => 'tok-1', getAuthorization: () => 'Basic b3BzOnB3',
      createClient: () => client, schedule: immediate, statesThrottleMs: 0,
    });
    hub.start();
    expect(client.connectHeaders).toEqual({ Authorization: 'Basic b3BzOnB3' });
    hub.stop();
  });

  it('sends the console language in CONNECT so push texts come in it', () => {
    const client = new FakeStompClient();
    const hub = new LiveHub({
      url: 'ws://example/wss/stomp', enterpriseId: 42, getToken: () => 'tok-1', getLanguage: () => 'en-US',
      createClient: () => client, schedule: immediate, statesThrottleMs: 0,
    });
    hub.start();
    expect(client.connectHeaders).toEqual({ Authorization: 'Bearer tok-1', 'X-Fleet-Language': 'en-US' });
    hub.stop();
  });

  it("logs a server's ERROR frame in the session's language, the Chinese message when it sent none", () => {
    const { hub, client } = makeHub();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    hub.start();
    client.onStompError({ headers: { message: '令牌已过期', localMessage: 'The token has expired' }, body: 'The token has expired' });
    client.onStompError({ headers: { message: '令牌已过期' }, body: '' });
    expect(warn.mock.calls.map((call) => call[1])).toEqual(['The token has expired', '令牌已过期']);
    warn.mockRestore();
    hub.stop();
  });

  it('handshakes again in the new language when the console switches, and resyncs what was pushed meanwhile', async () => {
    const client = new FakeStompClient();
    let language = 'zh-CN';
    const hub = new LiveHub({
      url: 'ws://example/wss/stomp', enterpriseId: 42, getToken: () => 'tok-1', getLanguage: () => language,
      createClient: () => client, schedule: immediate, statesThrottleMs: 0,
    });
    const resync = vi.fn();
    hub.onReconnect(resync);
    hub.start();
    client.open();
    hub.refreshLanguage(); // same language: the socket stays
    expect(client.activations).toBe(1);

    language = 'en-US';
    hub.refreshLanguage();
    await Promise.resolve();
    expect(client.activations).toBe(2);
    expect(client.connectHeaders['X-Fleet-Language']).toBe('en-US');
    client.open();
    expect([...client.subscriptions.keys()].sort()).toEqual(['/user/42/message', '/user/42/positions']);
    expect(resync).toHaveBeenCalledTimes(1);
    expect(hub.status).toBe('connected');
    hub.stop();
  });

  it('leaves a socket that is down to send the new language at its next CONNECT', () => {
    const client = new FakeStompClient();
    let language = 'zh-CN';
    const hub = new LiveHub({
      url: 'ws://example/wss/stomp', enterpriseId: 42, getToken: () => 'tok-1', getLanguage: () => language,
      createClient: () => client, schedule: immediate, statesThrottleMs: 0,
    });
    hub.start();
    language = 'zh-HK';
    hub.refreshLanguage();
    expect(client.activations).toBe(1);
    hub.stop();
  });

  it('resyncs over REST after a reconnect, not after the first connect', async () => {
    const { hub, client, setToken } = makeHub();
    const resync = vi.fn();
    hub.onReconnect(resync);
    hub.start();
    client.open();
    expect(resync).not.toHaveBeenCalled();

    vi.setSystemTime(new Date('2024-05-01T00:00:00Z'));
    client.drop();
    expect(hub.status).toBe('reconnecting');
    setToken('tok-2');
    await vi.advanceTimersByTimeAsync(1000); // first backoff step
    expect(client.activations).toBe(2);
    expect(client.connectHeaders).toEqual({ Authorization: 'Bearer tok-2' });
    client.open();
    expect(resync).toHaveBeenCalledTimes(1);
    expect(resync).toHaveBeenCalledWith(Date.parse('2024-05-01T00:00:00Z'));
    expect(client.subscriptions.size).toBe(2);
    hub.stop();
  });

  it('backs off exponentially while the server stays away', async () => {
    const { hub, client } = makeHub();
    hub.start();
    client.open();
    client.drop();
    await vi.advanceTimersByTimeAsync(999);
    expect(client.activations).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(client.activations).toBe(2);
    client.drop(); // attempt failed
    await vi.advanceTimersByTimeAsync(1999);
    expect(client.activations).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(client.activations).toBe(3);
    hub.stop();
  });

  it('reconnects from the 30 s liveness check when no reconnect is pending', async () => {
    const { hub, client } = makeHub();
    hub.start();
    client.open();
    client.connected = false; // lost without a close event (a sleeping laptop)
    await vi.advanceTimersByTimeAsync(30000);
    expect(client.activations).toBe(2);
    hub.stop();
  });

  it('coalesces pushed positions into the store, latest per device', () => {
    const { hub, client } = makeHub();
    hub.start();
    client.open();
    const seen = vi.fn();
    hub.positions.subscribe(seen);
    client.deliver('/user/42/positions',
      pushed([position(1, '2024-05-01T00:00:01Z', 116.1), position(1, '2024-05-01T00:00:03Z', 116.3), position(2, '2024-05-01T00:00:01Z')]));
    expect(seen).toHaveBeenCalledTimes(1);
    expect(hub.positions.get(1)?.lng).toBe(116.3);
    expect(hub.positions.get(2)).toBeDefined();
    // A position alone says nothing about being online (only the device state and pushes 1/6 do).
    expect(hub.states.get(1)).toBeUndefined();
    hub.stop();
  });

  it('feeds pushes 1 and 6 to the state store and to push listeners', () => {
    const { hub, client } = makeHub();
    const pushes = vi.fn();
    hub.onPush(pushes);
    hub.start();
    client.open();
    client.deliver('/user/42/message', { type: 6, data: { deviceId: 3, bizState: 3 } });
    client.deliver('/user/42/message', 'not json');
    expect(hub.states.get(3)?.bizState).toBe(3);
    expect(pushes).toHaveBeenCalledTimes(1);
    hub.stop();
  });

  it('stops the client and ignores its late callbacks', () => {
    const { hub, client } = makeHub();
    const resync = vi.fn();
    hub.onReconnect(resync);
    hub.start();
    client.open();
    hub.stop();
    expect(client.active).toBe(false);
    client.drop();
    client.open();
    expect(resync).not.toHaveBeenCalled();
    expect(hub.status).toBe('stopped');
  });
});

describe('online is the server device state, never the presence of a position', () => {
  const onlineCount = (hub: LiveHub, ids: number[]) => ids.filter((id) => isVehicleOnline(hub.states.get(id))).length;
  const ids = Array.from({ length: 205 }, (_, i) => i + 1);

  it('ticking all 205 vehicles (their REST last positions) keeps the count at 200/205', () => {
    const { hub } = makeHub();
    // 200 online, 5 offline, as the car rows / the bulk read say.
    hub.states.seed(ids.map((id) => [id, { online: id <= 200, bizState: id <= 200 ? 1 : 0 }]));
    expect(onlineCount(hub, ids)).toBe(200);
    // Every ticked vehicle's last fix read over REST: the offline five have old positions too.
    hub.ingest(ids.map((id) => ({ ...position(id, '2026-03-01T02:00:00Z'), timeMs: Date.parse('2026-03-01T02:00:00Z'), bizState: 4 })));
    expect(hub.positions.size()).toBe(205);
    expect(onlineCount(hub, ids)).toBe(200);
    // The offline vehicles' markers are drawn offline.
    expect(hub.positions.get(203)?.bizState).toBe(0);
    expect(hub.positions.get(7)?.bizState).toBe(4);
  });

  it('a pushed position of an offline device does not make it online; push type 1 does', () => {
    const { hub, client } = makeHub();
    hub.start();
    client.open();
    hub.states.seed([[9, { online: false, bizState: 0 }]]);
    client.deliver('/user/42/positions', pushed([position(9, '2026-03-01T02:00:00Z')]));
    expect(isVehicleOnline(hub.states.get(9))).toBe(false);
    expect(hub.positions.get(9)?.bizState).toBe(0);
    client.deliver('/user/42/message', { type: 1, data: { deviceId: 9, state: 1 } });
    expect(isVehicleOnline(hub.states.get(9))).toBe(true);
    // The stored position is recoloured with the new state (no signal until a type 6 says more).
    expect(hub.positions.get(9)?.bizState).toBe(4);
    client.deliver('/user/42/message', { type: 1, data: { deviceId: 9, state: 0 } });
    expect(hub.positions.get(9)?.bizState).toBe(0);
    hub.stop();
  });

  it('resync replaces every state with the server one and recolours what is drawn', () => {
    const { hub } = makeHub();
    hub.states.seed([[1, { online: true, bizState: 1 }]]);
    hub.ingest([{ ...position(1, '2026-03-01T02:00:00Z'), timeMs: 1 }]);
    hub.resync([[1, { online: false, bizState: 0 }]], []);
    expect(isVehicleOnline(hub.states.get(1))).toBe(false);
    expect(hub.positions.get(1)?.bizState).toBe(0);
  });
});
