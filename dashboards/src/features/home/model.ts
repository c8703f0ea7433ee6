/**
 * The welcome and home pages' rules (console-spec §2 menu labels welcome, home): the greeting by the hour, the
 * shortcuts to the screens the user's route map holds (the server filtered it by the user's rights, console-spec §6),
 * the entry points of the home page (each top menu section the user holds, opened at its first screen).
 */
import type { ServerRoute } from '../../auth/types';
import { buildMenu, type MenuNode } from '../../router/routeTable';

export type DayPart = 'morning' | 'noon' | 'afternoon' | 'evening';

/** 05:00-10:59 morning, 11:00-12:59 noon, 13:00-17:59 afternoon, else evening. */
export function dayPart(hour: number): DayPart {
  if (hour >= 5 && hour < 11) return 'morning';
  if (hour >= 11 && hour < 13) return 'noon';
  if (hour >= 13 && hour < 18) return 'afternoon';
  return 'evening';
}

/** The welcome page's shortcuts, in this order, each kept only when the user's route map holds it. */
export const SHORTCUTS = [
  '/dashboard/map', '/dashboard/index', '/dashboard/alarm', '/dashboard/ship', '/list/alarm', '/list/car',
  '/dashboard/trace', '/report/dailyMileage', '/setting/notify/List', '/account/center',
] as const;

export interface Shortcut {
  path: string;
  /** The menu key of its title (menu namespace). */
  title: string;
  icon?: string;
}

function find(routes: readonly ServerRoute[] | undefined, path: string): ServerRoute | undefined {
  for (const route of routes ?? []) {
    if (route.path === path) return route;
    const inner = find(route.children, path);
    if (inner) return inner;
  }
  return undefined;
}

export function shortcuts(routes: readonly ServerRoute[] | undefined, paths: readonly string[] = SHORTCUTS): Shortcut[] {
  return paths.flatMap((path) => {
    const route = find(routes, path);
    return route ? [{ path, title: route.meta.title, icon: route.meta.icon }] : [];
  });
}

function firstLeaf(node: MenuNode): MenuNode {
  return node.children?.length ? firstLeaf(node.children[0]) : node;
}

/** The home page's entry points: each visible top menu section of the user, opened at its first screen. */
export function entryPoints(routes: readonly ServerRoute[] | undefined): Shortcut[] {
  return buildMenu([...(routes ?? [])])
    .filter((node) => !node.link && node.key !== '/welcome' && node.key !== '/home')
    .map((node) => ({ path: firstLeaf(node).key, title: node.title, icon: node.icon }));
}
