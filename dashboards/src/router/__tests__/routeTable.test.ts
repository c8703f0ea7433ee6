import { describe, expect, test } from 'vitest';
import type { Permission, ServerRoute } from '../../auth/types';
import {
  buildMenu, filterRoutes, findPage, flattenPages, homePath, isDenied, menuParents, routeHeld, selectedMenuKey, userHasPermissions,
} from '../routeTable';

const route = (path: string, component: string, meta: Partial<ServerRoute['meta']> = {}, children: ServerRoute[] = []): ServerRoute => ({
  path,
  name: path,
  component,
  meta: { title: `menu${path.replaceAll('/', '.')}`, ...meta },
  children,
});

const ROUTES: ServerRoute[] = [
  route('/dashboard', 'RouteView', { permission: ['dashboard', 'monitor'] }, [
    route('/dashboard/map', 'dashboard/map', { permission: ['monitor'], closable: false }),
    route('/dashboard/index', 'dashboard/index', { permission: ['dashboard'] }),
  ]),
  route('/list', 'RouteView', {}, [
    route('/list/car', 'list/car', { permission: ['car'] }),
    route('/list/car/:id', 'list/carDetail', { permission: ['car'], invisible: true, highlight: '/list/car' }),
  ]),
  route('/cockpit/index', 'cockpit/index', { invisible: true, target: '_blank' }),
  route('/docs', 'RouteView', { link: 'https://example.org/docs' }),
];

const perms = (...codes: string[]): Permission[] => codes.map((code) => ({ code, actions: ['query'] }));

describe('permission filtering (console-spec §6)', () => {
  test('a route is kept when the user holds one of its codes; no codes means open', () => {
    const kept = filterRoutes(ROUTES, perms('monitor'));
    expect(kept.map((r) => r.path)).toEqual(['/dashboard', '/cockpit/index', '/docs']);
    expect(kept[0].children?.map((r) => r.path)).toEqual(['/dashboard/map']);
  });

  test('a container whose children were all removed goes too', () => {
    expect(filterRoutes(ROUTES, perms('monitor')).some((r) => r.path === '/list')).toBe(false);
    expect(filterRoutes(ROUTES, perms('car')).some((r) => r.path === '/list')).toBe(true);
  });

  test('a code:action entry needs that action on the code (the video screens: monitor:video)', () => {
    const routes = [route('/dashboard/monitor', 'dashboard/monitor', { permission: ['monitor:video'] })];
    expect(filterRoutes(routes, [{ code: 'monitor', actions: ['query', 'get'] }])).toEqual([]);
    expect(filterRoutes(routes, [{ code: 'monitor', actions: ['query', 'video'] }]).map((r) => r.path)).toEqual(['/dashboard/monitor']);
    expect(filterRoutes(routes, [{ code: 'video', actions: ['query'] }])).toEqual([]);
  });

  test('a code with no actions is not held', () => {
    expect(filterRoutes(ROUTES, [{ code: 'monitor', actions: [] }]).some((r) => r.path === '/dashboard')).toBe(false);
    expect(userHasPermissions([{ code: 'monitor', actions: [] }])).toBe(false);
    expect(userHasPermissions([])).toBe(false);
    expect(userHasPermissions(perms('car'))).toBe(true);
  });
});

describe('pages and menu', () => {
  const routes = filterRoutes(ROUTES, perms('monitor', 'dashboard', 'car'));
  const pages = flattenPages(routes);

  test('containers redirect to their first child; full-screen and link routes are not shell pages', () => {
    expect(findPage(pages, '/dashboard')?.redirect).toBe('/dashboard/map');
    expect(findPage(pages, '/cockpit/index')).toBeUndefined();
    expect(findPage(pages, '/docs')).toBeUndefined();
  });

  test('path parameters match, unknown paths do not', () => {
    expect(findPage(pages, '/list/car/42')?.component).toBe('list/carDetail');
    expect(findPage(pages, '/nowhere')).toBeUndefined();
  });

  test('account and exception pages exist even when the map leaves them out', () => {
    for (const path of ['/account/center', '/account/settings', '/403', '/404', '/500', '/result/fail']) {
      expect(findPage(pages, path), path).toBeDefined();
    }
  });

  test('the menu has visible entries only; links and targets are kept', () => {
    const menu = buildMenu(routes);
    expect(menu.map((m) => m.key)).toEqual(['/dashboard', '/list', '/docs']);
    expect(menu[1].children?.map((m) => m.key)).toEqual(['/list/car']);
    expect(menu[2].link).toBe('https://example.org/docs');
  });

  test('a page with a highlight target selects that menu entry, inside its opened parent', () => {
    const menu = buildMenu(routes);
    expect(selectedMenuKey(pages, '/list/car/42')).toBe('/list/car');
    expect(menuParents(menu, '/list/car')).toEqual(['/list']);
    expect(menuParents(menu, '/dashboard')).toEqual([]);
  });

  test('home is the stored index URL when allowed, else the first page the user may open', () => {
    expect(homePath(pages, '/dashboard/map')).toBe('/dashboard/map');
    const withoutMap = flattenPages(filterRoutes(ROUTES, perms('dashboard')));
    expect(homePath(withoutMap, '/dashboard/map')).toBe('/dashboard/index');
  });
});

describe('screens the user has no right to (platform-spec §1 exception pages)', () => {
  test('a path the server lists as denied is a 403, an unknown one is not', () => {
    const denied = ['/list/car', '/list/car/edit', '/cockpit/index'];
    expect(isDenied(denied, '/list/car')).toBe(true);
    expect(isDenied(denied, '/list/car/edit')).toBe(true);
    expect(isDenied(denied, '/list/nothing')).toBe(false);
    expect(isDenied(undefined, '/list/car')).toBe(false);
  });

  test('a route is held when the filtered route map has it at any depth', () => {
    const kept = filterRoutes(ROUTES, perms('monitor'));
    expect(routeHeld(kept, '/dashboard/map')).toBe(true);
    expect(routeHeld(kept, '/list/car')).toBe(false);
    expect(routeHeld(undefined, '/dashboard/map')).toBe(false);
  });
});
