/**
 * Build-time configuration (Vite env, read once here). Footer links default to the project's own
 * pages; override them with VITE_FOOTER_* when the console is deployed elsewhere.
 */
const env = import.meta.env;

export const FOOTER_LINKS = {
  // The product's home page inside the console (console-spec §2 menu label home, route /home).
  home: env.VITE_FOOTER_HOME_URL || '/home',
  source: env.VITE_FOOTER_SOURCE_URL || 'https://github.com/fleetwatch/fleetwatch',
  apiManual: env.VITE_FOOTER_API_MANUAL_URL || '/api-reference.html',
  // The console's own pages (offline, readable on a phone); `{lng}` is the console's language.
  userManual: env.VITE_FOOTER_USER_MANUAL_URL || '/manual/{lng}.html',
} as const;

/** The footer's manuals are the build's own files (not overridden above): linked as system files (api/systemFiles.ts). */
export const OWN_MANUALS = { apiManual: !env.VITE_FOOTER_API_MANUAL_URL, userManual: !env.VITE_FOOTER_USER_MANUAL_URL } as const;

export const COPYRIGHT_START_YEAR = 2024;

/** Authorization protocol 2 (console-spec §7 "General": "protocol 2 uses Basic with client credentials for the
 * token call"): the console authenticates itself as a client on its token calls with HTTP Basic
 * client_id:client_secret, the key and secret of the open platform app made for it. The server that serves the
 * console names them in index.html (FLEET_API_CONSOLE_CLIENT_ID / _SECRET: two meta tags, read once here), so one
 * build serves any server; else those given at build time (VITE_AUTH_CLIENT_ID, VITE_AUTH_CLIENT_SECRET). They
 * travel to every browser, as a public client's do: they say which client asks, they guard nothing. Neither:
 * no client credentials (protocols 1 and 3 need none; a server on protocol 2 then refuses the sign-in with its
 * message). */
function servedClient(): { id: string; secret: string } | null {
  if (typeof document === 'undefined') return null;
  const meta = (name: string) => document.querySelector(`meta[name="fleetwatch:${name}"]`)?.getAttribute('content') ?? '';
  const id = meta('client-id');
  return id ? { id, secret: meta('client-secret') } : null;
}

export const AUTH_CLIENT = servedClient() ?? (env.VITE_AUTH_CLIENT_ID
  ? { id: String(env.VITE_AUTH_CLIENT_ID), secret: String(env.VITE_AUTH_CLIENT_SECRET ?? '') }
  : null);
