/**
 * Process-wide lease on the single LiveHub: every page that needs live data acquires it, the socket
 * opens on the first lease and closes a little after the last is released (so a StrictMode remount
 * or a tab switch does not reconnect). A different enterprise (another user) gets a fresh hub.
 */
import i18n from 'i18next';
import { clientEffects } from '../api/effects';
import { LiveHub, type LiveHubOptions } from './LiveHub';
import { createStompClient, stompUrl } from './stompClient';

export interface LiveLease {
  hub: LiveHub;
  release(): void;
}

interface Shared {
  hub: LiveHub;
  enterpriseId: number;
  refs: number;
  stopTimer: ReturnType<typeof setTimeout> | null;
}

// Pushes are localised per connection: a language switch re-handshakes the running hub.
i18n.on('languageChanged', () => shared?.hub.refreshLanguage());

let shared: Shared | null = null;
const STOP_DELAY_MS = 5000;
const hubListeners = new Set<() => void>();

function hubChanged(): void {
  for (const listener of hubListeners) listener();
}

/** For useSyncExternalStore: the current hub (null when none runs). */
export function currentLiveHub(): LiveHub | null {
  return shared?.hub ?? null;
}

export function subscribeLiveHub(listener: () => void): () => void {
  hubListeners.add(listener);
  return () => {
    hubListeners.delete(listener);
  };
}

export function acquireLive(
  enterpriseId: number,
  getToken: () => string | null | undefined,
  overrides: Partial<LiveHubOptions> = {},
): LiveLease {
  if (shared && shared.enterpriseId !== enterpriseId) {
    if (shared.stopTimer) clearTimeout(shared.stopTimer);
    shared.hub.stop();
    shared = null;
  }
  let created = false;
  if (!shared) {
    const hub = new LiveHub({
      url: stompUrl(),
      enterpriseId,
      getToken,
      getLanguage: () => clientEffects().language(),
      createClient: createStompClient,
      ...overrides,
    });
    hub.start();
    shared = { hub, enterpriseId, refs: 0, stopTimer: null };
    exposeForBenchmark(hub);
    created = true;
  }
  const entry = shared;
  entry.refs += 1;
  if (entry.stopTimer) {
    clearTimeout(entry.stopTimer);
    entry.stopTimer = null;
  }
  if (created) hubChanged();
  let released = false;
  return {
    hub: entry.hub,
    release() {
      if (released) return;
      released = true;
      entry.refs -= 1;
      if (entry.refs > 0) return;
      entry.stopTimer = setTimeout(() => {
        entry.hub.stop();
        if (shared === entry) {
          shared = null;
          hubChanged();
        }
      }, STOP_DELAY_MS);
    },
  };
}

/** Stops the hub at once (logout). */
export function stopLive(): void {
  if (!shared) return;
  if (shared.stopTimer) clearTimeout(shared.stopTimer);
  shared.hub.stop();
  shared = null;
  hubChanged();
}

function exposeForBenchmark(hub: LiveHub): void {
  if (typeof window === 'undefined') return;
  (window as unknown as { __fleetwatchLive?: unknown }).__fleetwatchLive = {
    status: () => hub.status,
    latency: () => hub.latency.summary(),
    resetLatency: () => hub.latency.reset(),
    positions: () => hub.positions.size(),
  };
}
