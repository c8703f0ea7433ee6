/** The slice of @stomp/stompjs `Client` the hub uses, so unit tests can drive a fake one. */
import { Client } from '@stomp/stompjs';
// The prebuilt browser bundle: the package's CommonJS sources read Node's `global`, which a browser lacks.
import SockJS from 'sockjs-client/dist/sockjs.min.js';

export interface StompMessageLike {
  body: string;
}

export interface StompSubscriptionLike {
  unsubscribe(): void;
}

export interface StompFrameLike {
  headers: Record<string, string>;
  body: string;
}

export interface StompClientLike {
  connectHeaders: Record<string, string>;
  reconnectDelay: number;
  readonly connected: boolean;
  readonly active: boolean;
  onConnect: (frame: StompFrameLike) => void;
  onStompError: (frame: StompFrameLike) => void;
  onWebSocketClose: (event: unknown) => void;
  beforeConnect: () => void | Promise<void>;
  activate(): void;
  deactivate(): Promise<void> | void;
  subscribe(destination: string, callback: (message: StompMessageLike) => void): StompSubscriptionLike;
}

/**
 * The push endpoint (console-spec §7 "SockJS/STOMP endpoint /wss/stomp") on the page's own origin (the
 * API serves the console): SockJS takes the http(s) URL and opens its websocket transport under it.
 */
export function stompUrl(location: Pick<Location, 'protocol' | 'host'> = window.location): string {
  return `${location.protocol}//${location.host}/wss/stomp`;
}

/** The server serves SockJS's websocket transport only (api/sockjs.py): no polling fallbacks. */
export const SOCKJS_OPTIONS: SockJS.Options = { transports: ['websocket'] };

export function createStompClient(url: string): StompClientLike {
  return new Client({
    // A new SockJS session on every (re)connect; STOMP's version is negotiated in CONNECT.
    webSocketFactory: () => new SockJS(url, undefined, SOCKJS_OPTIONS),
    heartbeatIncoming: 10000,
    heartbeatOutgoing: 10000,
    reconnectDelay: 1000,
  }) as unknown as StompClientLike;
}
