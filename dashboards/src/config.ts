/**
 * Build-time configuration (Vite env, read once here). Footer links default to the project's own
 * pages; override them with VITE_FOOTER_* when the console is deployed elsewhere.
 */
const env = import.meta.env;

export const FOOTER_LINKS = {
  home: env.VITE_FOOTER_HOME_URL || '/',
  source: env.VITE_FOOTER_SOURCE_URL || 'https://github.com/fleetwatch/fleetwatch',
  apiManual: env.VITE_FOOTER_API_MANUAL_URL || '/api/openapi.json',
  userManual: env.VITE_FOOTER_USER_MANUAL_URL || 'https://github.com/fleetwatch/fleetwatch/tree/main/docs',
} as const;

export const COPYRIGHT_START_YEAR = 2024;
