import type { TFunction } from 'i18next';

/**
 * Route titles are flat keys of the `menu` namespace that contain dots ("menu.dashboard.map"), so
 * they are looked up without the key separator.
 */
export function menuTitle(t: TFunction, key: string): string {
  return t(key, { ns: 'menu', keySeparator: false, defaultValue: key });
}
