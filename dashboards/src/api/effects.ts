import i18n from 'i18next';
import { session } from '../auth/session';
import { currentFullPath, isLoginPath, loginUrl } from '../router/paths';

/**
 * The side effects of the failure handler, swappable for tests and wired to antd and the router by
 * <ClientEffectsBridge> once the app has mounted.
 */
export interface ClientEffects {
  translate: (key: string) => string;
  /** The console's language, sent as X-Fleet-Language so server errors come back in it. */
  language: () => string;
  notifyError: (title: string, message: string) => void;
  /** Closes every error notification on screen (a successful sign-in makes the old ones stale). */
  clearErrors: () => void;
  /** The current full path (pathname + search + hash). */
  currentPath: () => string;
  navigate: (to: string) => void;
  /** Ends the session (token and permissions) without the user's logout flag. */
  logout: () => void;
}

const defaults: ClientEffects = {
  translate: (key) => i18n.t(key),
  language: () => i18n.language,
  notifyError: (title, message) => console.error(`${title}: ${message}`),
  clearErrors: () => undefined,
  currentPath: () => currentFullPath(),
  navigate: (to) => window.location.assign(to),
  logout: () => session.expire(),
};

let effects: ClientEffects = { ...defaults };

export function configureClientEffects(overrides: Partial<ClientEffects>): () => void {
  const previous = effects;
  effects = { ...effects, ...overrides };
  return () => {
    effects = previous;
  };
}

export function clientEffects(): ClientEffects {
  return effects;
}

export function onLoginPage(): boolean {
  return isLoginPath(effects.currentPath().split(/[?#]/)[0]);
}

/** Log out and send the user to login, remembering where they were. */
export function logoutToLogin(): void {
  const redirect = effects.currentPath();
  effects.logout();
  effects.navigate(loginUrl(redirect));
}
