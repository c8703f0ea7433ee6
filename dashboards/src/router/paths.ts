export const LOGIN_PATH = '/user/login';
export const LICENCE_APPLY_PATH = '/user/license';
export const DEFAULT_INDEX_PATH = '/dashboard/map';
export const NOT_FOUND_PATH = '/404';
export const FORBIDDEN_PATH = '/403';
export const NOTIFY_LIST_PATH = '/setting/notify/List';
export const ACCOUNT_CENTER_PATH = '/account/center';
export const ACCOUNT_SETTINGS_PATH = '/account/settings';
export const COCKPIT_PATH = '/cockpit/index';
export const NEV1_COCKPIT_PATH = '/cockpit/nev1/index';

const INDEX_URL_KEY = 'fleetwatch.indexUrl';

export function isLoginPath(pathname: string): boolean {
  return pathname === LOGIN_PATH || pathname.startsWith(`${LOGIN_PATH}/`);
}

/** /user/login?redirect=<full path>; no redirect back to login itself or to the root. */
export function loginUrl(redirect?: string): string {
  if (!redirect || redirect === '/' || isLoginPath(redirect.split('?')[0])) return LOGIN_PATH;
  return `${LOGIN_PATH}?redirect=${encodeURIComponent(redirect)}`;
}

/**
 * Where to go after signing in: the redirect query when it is a local path (never an absolute URL,
 * so a crafted link cannot send the user to another site), else the stored index URL.
 */
export function safeRedirect(redirect: string | null | undefined, fallback: string): string {
  if (!redirect || !redirect.startsWith('/') || redirect.startsWith('//') || isLoginPath(redirect.split('?')[0])) {
    return fallback;
  }
  return redirect;
}

/** The stored index URL (console-spec §2: "/" and a signed-in visit to login go there). */
export function indexUrl(): string {
  return sessionStorage.getItem(INDEX_URL_KEY) || DEFAULT_INDEX_PATH;
}

/** Where "/" goes when no index URL is stored (console-spec §2 routes: "/" redirects to /dashboard/index, or to
 * a stored index URL); signing in without one goes to the live map instead (`DEFAULT_INDEX_PATH`). */
export const ROOT_INDEX_PATH = '/dashboard/index';

/** The target of "/" (console-spec §2): the stored index URL when there is one, else /dashboard/index. */
export function rootRedirect(): string {
  return sessionStorage.getItem(INDEX_URL_KEY) || ROOT_INDEX_PATH;
}

export function setIndexUrl(path: string): void {
  sessionStorage.setItem(INDEX_URL_KEY, path);
}

export function currentFullPath(loc: Pick<Location, 'pathname' | 'search' | 'hash'> = window.location): string {
  return `${loc.pathname}${loc.search}${loc.hash}`;
}

/**
 * Opens one of our own pages in a new browser tab. Not an <a target="_blank">: browsers treat that as
 * noopener and start the tab with empty sessionStorage, i.e. signed out; window.open keeps the opener,
 * so the new tab gets a copy of the session.
 */
export function openSameOrigin(path: string): void {
  window.open(path, '_blank');
}
