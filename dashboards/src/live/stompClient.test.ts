import { describe, expect, it } from 'vitest';
import { SOCKJS_OPTIONS, stompUrl } from './stompClient';

describe('stompClient', () => {
  it('points SockJS at /wss/stomp on the page origin, same scheme (console-spec §7)', () => {
    expect(stompUrl({ protocol: 'https:', host: 'fleet.example:8443' })).toBe('https://fleet.example:8443/wss/stomp');
    expect(stompUrl({ protocol: 'http:', host: '127.0.0.1:8080' })).toBe('http://127.0.0.1:8080/wss/stomp');
  });

  it('asks SockJS for the websocket transport only (the server serves no other)', () => {
    expect(SOCKJS_OPTIONS.transports).toEqual(['websocket']);
  });
});
