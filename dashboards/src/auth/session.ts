import type { CurrentUser, StoredToken, TokenData } from './types';

/**
 * The signed-in session, kept in sessionStorage (console-spec §3): the token and the current user with
 * permissions and route map. The password is stored only under authorization protocol 1, as the Basic
 * credentials every call sends (console-spec §3 "Current user (kept in session storage): ... password",
 * §7 "General"), and goes with the session. React reads it through useSession().
 */
const TOKEN_KEY = 'fleetwatch.token';
const BASIC_KEY = 'fleetwatch.basic';
const USER_KEY = 'fleetwatch.user';
const LOGOUT_FLAG_KEY = 'fleetwatch.loggedOut';
/** Per-session state that must not outlive a logout (the open tabs, see layouts/tabs/rules.ts; the system
 * files' answers, api/systemFiles.ts: the next sign-in asks again). */
const UI_STATE_KEYS = ['fleetwatch.tabs', 'fleetwatch.systemFiles'];

export interface SessionState {
  token: StoredToken | null;
  user: CurrentUser | null;
}

function read<T>(key: string): T | null {
  try {
    const raw = sessionStorage.getItem(key);
    return raw ? (JSON.parse(raw) as T) : null;
  } catch {
    return null;
  }
}

function write(key: string, value: unknown): void {
  if (value === null) sessionStorage.removeItem(key);
  else sessionStorage.setItem(key, JSON.stringify(value));
}

let state: SessionState = { token: read<StoredToken>(TOKEN_KEY), user: read<CurrentUser>(USER_KEY) };
const listeners = new Set<() => void>();

function update(next: Partial<SessionState>): void {
  state = { ...state, ...next };
  listeners.forEach((listener) => listener());
}

/** base64 of UTF-8 `userName:password`, as HTTP Basic carries it. */
export function basicCredentials(userName: string, password: string): string {
  const bytes = new TextEncoder().encode(`${userName}:${password}`);
  let binary = '';
  bytes.forEach((byte) => {
    binary += String.fromCharCode(byte);
  });
  return btoa(binary);
}

function drop(): void {
  write(TOKEN_KEY, null);
  write(BASIC_KEY, null);
  write(USER_KEY, null);
  UI_STATE_KEYS.forEach((key) => sessionStorage.removeItem(key));
  update({ token: null, user: null });
}

export const session = {
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  get(): SessionState {
    return state;
  },
  accessToken(): string | null {
    return state.token?.access_token ?? null;
  },
  /** The Authorization header of every call and of the STOMP CONNECT: Basic under protocol 1, else Bearer. */
  authorization(): string | null {
    const basic = read<string>(BASIC_KEY);
    if (basic) return `Basic ${basic}`;
    const token = state.token?.access_token;
    return token ? `Bearer ${token}` : null;
  },
  /** Protocol 1: the signed-in user's Basic credentials (null: send the Bearer token). */
  setBasic(credentials: string | null): void {
    write(BASIC_KEY, credentials);
  },
  setToken(token: TokenData, now = Date.now()): void {
    const stored: StoredToken = { ...token, received_at_ms: now };
    write(TOKEN_KEY, stored);
    sessionStorage.removeItem(LOGOUT_FLAG_KEY);
    update({ token: stored });
  },
  setUser(user: CurrentUser): void {
    write(USER_KEY, user);
    update({ user });
  },
  /** The user logged out: clears token and permissions and sets the logout flag (console-spec §4). */
  clear(): void {
    sessionStorage.setItem(LOGOUT_FLAG_KEY, '1');
    drop();
  },
  /**
   * The session ended without the user asking (40002, failed refresh, no permission): clears token
   * and permissions, no logout flag, so the login page gets the redirect back to where they were.
   */
  expire(): void {
    sessionStorage.removeItem(LOGOUT_FLAG_KEY);
    drop();
  },
  loggedOut(): boolean {
    return sessionStorage.getItem(LOGOUT_FLAG_KEY) === '1';
  },
  /** The login page was reached: later visits to protected pages carry their redirect again. */
  acknowledgeLogout(): void {
    sessionStorage.removeItem(LOGOUT_FLAG_KEY);
  },
  /** Re-reads storage; for tests. */
  reload(): void {
    update({ token: read<StoredToken>(TOKEN_KEY), user: read<CurrentUser>(USER_KEY) });
  },
};

/** The access token for other transports (the STOMP CONNECT frame). */
export function getAccessToken(): string | null {
  return session.accessToken();
}

/** The Authorization header for other transports (the STOMP CONNECT frame): Basic under protocol 1. */
export function getAuthorization(): string | null {
  return session.authorization();
}
