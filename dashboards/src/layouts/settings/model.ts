/** The settings drawer's model (console-spec §2 "Settings drawer", platform-spec §9 defaults). */
import { colorIsValid } from '../../utils/validators';

export type NavTheme = 'dark' | 'light' | 'night';
export type LayoutMode = 'side' | 'top' | 'mix';
export type ContentWidth = 'fluid' | 'fixed';
export type AnimationEffect = 'fade' | 'slide' | 'zoom' | 'bounce';
export type AnimationDirection = 'left' | 'right' | 'up' | 'down';

export interface LayoutSettings {
  navTheme: NavTheme;
  primaryColor: string;
  layout: LayoutMode;
  contentWidth: ContentWidth;
  fixedHeader: boolean;
  fixSiderbar: boolean;
  colorWeak: boolean;
  multiTab: boolean;
  hideSetting: boolean;
  animation: { disabled: boolean; effect: AnimationEffect; direction: AnimationDirection };
}

/** The 8 palettes; i18n keys are layout:settings.colors.<name>. */
export const PALETTES: { name: string; color: string }[] = [
  { name: 'daybreak', color: '#1890ff' },
  { name: 'dust', color: '#f5222d' },
  { name: 'volcano', color: '#fa541c' },
  { name: 'sunset', color: '#faad14' },
  { name: 'cyan', color: '#13c2c2' },
  { name: 'green', color: '#52c41a' },
  { name: 'geekblue', color: '#2f54eb' },
  { name: 'purple', color: '#722ed1' },
];

/** Platform-spec §9 status colours, the theme's success / warning / error (antd's default error is #ff4d4f). */
export const STATUS_COLORS = { success: '#52c41a', warning: '#faad14', error: '#f5222f' } as const;

/** Platform-spec §9 "random theme on": the drawer offers a random theme colour. */
export const RANDOM_THEME = true;

/** A palette colour other than `current`, picked with `random` (0 <= x < 1). */
export function randomThemeColor(current: string, random: () => number = Math.random): string {
  const others = PALETTES.filter((p) => p.color !== current);
  return others[Math.min(others.length - 1, Math.floor(random() * others.length))].color;
}

export const ANIMATION_EFFECTS: AnimationEffect[] = ['fade', 'slide', 'zoom', 'bounce'];
export const ANIMATION_DIRECTIONS: AnimationDirection[] = ['left', 'right', 'up', 'down'];

export const DEFAULT_SETTINGS: LayoutSettings = {
  navTheme: 'dark',
  primaryColor: '#1890ff',
  layout: 'side',
  contentWidth: 'fluid',
  fixedHeader: false,
  fixSiderbar: true,
  colorWeak: false,
  multiTab: true,
  hideSetting: false,
  animation: { disabled: false, effect: 'slide', direction: 'left' },
};

export const SETTINGS_STORAGE_KEY = 'fleetwatch.layoutSettings';

function pick<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  return allowed.includes(value as T) ? (value as T) : fallback;
}

function bool(value: unknown, fallback: boolean): boolean {
  return typeof value === 'boolean' ? value : fallback;
}

/** Reads saved settings; unknown or malformed values fall back to the defaults one by one. */
export function parseSettings(raw: string | null): LayoutSettings {
  let saved: Partial<LayoutSettings>;
  try {
    saved = raw ? (JSON.parse(raw) as Partial<LayoutSettings>) : {};
  } catch {
    saved = {};
  }
  const d = DEFAULT_SETTINGS;
  const animation: Partial<LayoutSettings['animation']> = saved.animation ?? {};
  return {
    navTheme: pick(saved.navTheme, ['dark', 'light', 'night'], d.navTheme),
    // any colour platform-spec §5 accepts (a copied configuration may hold one outside the 8 palettes)
    primaryColor: colorIsValid(saved.primaryColor) ? saved.primaryColor.trim() : d.primaryColor,
    layout: pick(saved.layout, ['side', 'top', 'mix'], d.layout),
    contentWidth: pick(saved.contentWidth, ['fluid', 'fixed'], d.contentWidth),
    fixedHeader: bool(saved.fixedHeader, d.fixedHeader),
    fixSiderbar: bool(saved.fixSiderbar, d.fixSiderbar),
    colorWeak: bool(saved.colorWeak, d.colorWeak),
    multiTab: bool(saved.multiTab, d.multiTab),
    hideSetting: bool(saved.hideSetting, d.hideSetting),
    animation: {
      disabled: bool(animation.disabled, d.animation.disabled),
      effect: pick(animation.effect, ANIMATION_EFFECTS, d.animation.effect),
      direction: pick(animation.direction, ANIMATION_DIRECTIONS, d.animation.direction),
    },
  };
}

export function loadSettings(): LayoutSettings {
  return parseSettings(localStorage.getItem(SETTINGS_STORAGE_KEY));
}

export function saveSettings(settings: LayoutSettings): void {
  localStorage.setItem(SETTINGS_STORAGE_KEY, JSON.stringify(settings));
}

export function clearSavedSettings(): void {
  localStorage.removeItem(SETTINGS_STORAGE_KEY);
}
