/** The slice of @stomp/stompjs `Client` the hub uses, so unit tests can drive a fake one. */
import { Client } from '@stomp/stompjs';

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

/** The push socket is plain WebSocket on the page's own origin (the API serves the console). */
export function stompUrl(location: Pick<Location, 'protocol' | 'host'> = window.location): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/wss/stomp`;
}

export function createStompClient(url: string): StompClientLike {
  return new Client({
    // No Sec-WebSocket-Protocol offer: a server that answers without choosing one (ours) would
    // otherwise make the browser fail the handshake. The STOMP version is negotiated in CONNECT.
    webSocketFactory: () => new WebSocket(url),
    heartbeatIncoming: 10000,
    heartbeatOutgoing: 10000,
    reconnectDelay: 1000,
  }) as unknown as StompClientLike;
}
