import { describe, expect, test } from 'vitest';
import type { ServerRoute } from '../../../auth/types';
import { dayPart, entryPoints, shortcuts } from '../model';

const route = (path: string, title: string, children: ServerRoute[] = [], component = path.slice(1)): ServerRoute => ({
  path, name: title, component, meta: { title, icon: 'AlertOutlined' }, children,
});

const ROUTES: ServerRoute[] = [
  route('/welcome', 'menu.welcome'),
  route('/home', 'menu.home'),
  route('/dashboard', 'menu.dashboard', [route('/dashboard/alarm', 'menu.dashboard.alarm'), route('/dashboard/index', 'menu.dashboard.index')], 'RouteView'),
  route('/list', 'menu.list', [route('/list/alarm', 'menu.list.alarm')], 'RouteView'),
];

describe('welcome and home', () => {
  test('the greeting follows the hour', () => {
    expect([4, 5, 10, 11, 12, 13, 17, 18, 23].map(dayPart)).toEqual(
      ['evening', 'morning', 'morning', 'noon', 'noon', 'afternoon', 'afternoon', 'evening', 'evening']);
  });

  test('shortcuts are only the screens the route map holds, in the shortcut order', () => {
    expect(shortcuts(ROUTES).map((s) => s.path)).toEqual(['/dashboard/index', '/dashboard/alarm', '/list/alarm']);
    expect(shortcuts(ROUTES)[0].title).toBe('menu.dashboard.index');
    expect(shortcuts(undefined)).toEqual([]);
  });

  test('entry points are the top sections at their first screen, welcome and home left out', () => {
    expect(entryPoints(ROUTES).map((e) => [e.path, e.title])).toEqual([
      ['/dashboard/alarm', 'menu.dashboard'], ['/list/alarm', 'menu.list']]);
  });
});
