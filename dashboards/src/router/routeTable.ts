import { matchPath } from 'react-router';
import type { Permission, RouteMeta, ServerRoute } from '../auth/types';
import { fullScreenComponents } from './components';

/** A routable page of the shell, flattened from the server's route map. */
export interface PageRoute {
  path: string;
  name: string;
  component: string;
  meta: RouteMeta;
  /** Set on containers: where the container path itself goes. */
  redirect?: string;
}

export interface MenuNode {
  key: string;
  title: string;
  icon?: string;
  link?: string;
  target?: string;
  children?: MenuNode[];
}

/** A container whose children render inside the layout. */
export const CONTAINER_COMPONENT = 'RouteView';

/** Pages every signed-in user has even if the server's map leaves them out (invisible in the menu). */
export const STATIC_PAGES: PageRoute[] = [
  { path: '/account/center', name: 'accountCenter', component: 'account/center', meta: { title: 'menu.account.center', invisible: true } },
  {
    path: '/account/settings',
    name: 'accountSettings',
    component: 'account/settings',
    meta: { title: 'menu.account.settings', invisible: true, cacheAble: false },
  },
  { path: '/403', name: 'exception403', component: 'exception/403', meta: { title: 'menu.exception.403', invisible: true } },
  { path: '/404', name: 'exception404', component: 'exception/404', meta: { title: 'menu.exception.404', invisible: true } },
  { path: '/500', name: 'exception500', component: 'exception/500', meta: { title: 'menu.exception.500', invisible: true } },
  { path: '/result/fail', name: 'resultFail', component: 'result/fail', meta: { title: 'menu.result.fail', invisible: true } },
];

/** A code is held with any action; `code:action` (the video screens' `monitor:video`) needs that action. */
function holds(permissions: Permission[], codes: string[] | undefined): boolean {
  if (!codes || codes.length === 0) return true;
  return permissions.some((p) => p.actions.length > 0
    && (codes.includes(p.code) || p.actions.some((action) => codes.includes(`${p.code}:${action}`))));
}

/** Console-spec §6: a route is kept only if the user holds one of its codes; no codes means open. */
export function filterRoutes(routes: ServerRoute[], permissions: Permission[]): ServerRoute[] {
  const kept: ServerRoute[] = [];
  for (const route of routes) {
    if (!holds(permissions, route.meta?.permission)) continue;
    const children = route.children ? filterRoutes(route.children, permissions) : [];
    if (route.children && route.children.length > 0 && children.length === 0) continue;
    kept.push({ ...route, children });
  }
  return kept;
}

export function userHasPermissions(permissions: Permission[] | undefined): boolean {
  return !!permissions && permissions.some((p) => p.actions.length > 0);
}

/** Every page of the shell (containers included, for their redirects); full-screen pages excluded. */
export function flattenPages(routes: ServerRoute[]): PageRoute[] {
  const pages: PageRoute[] = [];
  const visit = (list: ServerRoute[]) => {
    for (const route of list) {
      if (route.component in fullScreenComponents || route.meta?.link) continue;
      const children = route.children ?? [];
      const redirect = route.redirect || (route.component === CONTAINER_COMPONENT ? children[0]?.path : undefined);
      pages.push({ path: route.path, name: route.name, component: route.component, meta: route.meta, redirect });
      visit(children);
    }
  };
  visit(routes);
  for (const page of STATIC_PAGES) if (!pages.some((p) => p.path === page.path)) pages.push(page);
  return pages;
}

/** Whether the path is a screen the user has no right to (platform-spec §1: the 403 exception page, not 404). */
export function isDenied(deniedPaths: readonly string[] | undefined, pathname: string): boolean {
  return !!deniedPaths?.some((path) => matchPath({ path, end: true }, pathname));
}

/** Whether the server's route map (already filtered by the user's rights) holds the path. */
export function routeHeld(routes: readonly ServerRoute[] | undefined, path: string): boolean {
  return !!routes?.some((route) => route.path === path || routeHeld(route.children, path));
}

export function findPage(pages: PageRoute[], pathname: string): PageRoute | undefined {
  return pages.find((page) => matchPath({ path: page.path, end: true }, pathname));
}

/**
 * Where "/" goes: the stored index URL when the user may open it, else the first page of the route
 * map (a user without the live map still lands somewhere useful), else the 404 page.
 */
export function homePath(pages: PageRoute[], preferred: string): string {
  const page = findPage(pages, preferred.split('?')[0]);
  if (page) return preferred;
  const first = pages.find((p) => !p.redirect && !p.meta.invisible && !p.path.includes(':'));
  return first ? first.path : '/404';
}

/** The menu: visible entries only, containers with at least one visible child. */
export function buildMenu(routes: ServerRoute[]): MenuNode[] {
  const nodes: MenuNode[] = [];
  for (const route of routes) {
    if (route.meta?.invisible) continue;
    const children = buildMenu(route.children ?? []);
    const node: MenuNode = { key: route.path, title: route.meta.title, icon: route.meta.icon };
    if (route.meta.link) node.link = route.meta.link;
    if (route.meta.target) node.target = route.meta.target;
    if (children.length > 0) node.children = children;
    else if (route.component === CONTAINER_COMPONENT && !route.meta.link) continue;
    nodes.push(node);
  }
  return nodes;
}

/** The menu key to select for a path: the page's highlight target, else the path itself. */
export function selectedMenuKey(pages: PageRoute[], pathname: string): string {
  return findPage(pages, pathname)?.meta.highlight || pathname;
}

/** Parent keys of a menu key, for opening submenus. */
export function menuParents(menu: MenuNode[], key: string, trail: string[] = []): string[] {
  for (const node of menu) {
    if (node.key === key) return trail;
    if (node.children) {
      const found = menuParents(node.children, key, [...trail, node.key]);
      if (found.length > 0 || node.children.some((c) => c.key === key)) return found;
    }
  }
  return [];
}
