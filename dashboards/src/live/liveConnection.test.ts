// @vitest-environment jsdom
import i18n from 'i18next';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { acquireLive, stopLive } from './liveConnection';
import type { StompClientLike } from './stompClient';

afterEach(() => stopLive());

describe('acquireLive', () => {
  it('re-handshakes the running hub when the console language changes', () => {
    let language = 'zh-CN';
    const client = {
      connected: false,
      activate: vi.fn(() => (client as unknown as { beforeConnect: () => void }).beforeConnect()),
      deactivate: vi.fn(),
      subscribe: vi.fn(() => ({ unsubscribe: vi.fn() })),
    };
    const lease = acquireLive(7, () => 'tok', {
      createClient: () => client as unknown as StompClientLike,
      getLanguage: () => language,
    });
    client.connected = true; // CONNECT (in zh-CN) accepted
    language = 'zh-HK';
    i18n.emit('languageChanged', 'zh-HK');
    expect(client.deactivate).toHaveBeenCalledTimes(1);
    lease.release();
  });
});
