// @vitest-environment jsdom
import { describe, expect, test } from 'vitest';
import { DEFAULT_INDEX_PATH, indexUrl, isLoginPath, loginUrl, rootRedirect, safeRedirect, setIndexUrl } from '../paths';
import { flattenPages, homePath } from '../routeTable';
import type { ServerRoute } from '../../auth/types';

describe('login redirects', () => {
  test('login carries the original full path as the redirect query', () => {
    expect(loginUrl('/dashboard/map?plate=A1#x')).toBe('/user/login?redirect=%2Fdashboard%2Fmap%3Fplate%3DA1%23x');
  });

  test('no redirect back to the root or to login itself', () => {
    expect(loginUrl('/')).toBe('/user/login');
    expect(loginUrl('/user/login?redirect=%2Fa')).toBe('/user/login');
    expect(loginUrl()).toBe('/user/login');
  });

  test('only local paths are followed after sign-in', () => {
    expect(safeRedirect('/dashboard/index', '/home')).toBe('/dashboard/index');
    expect(safeRedirect('https://evil.example/', '/home')).toBe('/home');
    expect(safeRedirect('//evil.example/', '/home')).toBe('/home');
    expect(safeRedirect('/user/login', '/home')).toBe('/home');
    expect(safeRedirect(null, '/home')).toBe('/home');
  });

  test('isLoginPath', () => {
    expect(isLoginPath('/user/login')).toBe(true);
    expect(isLoginPath('/user/loginx')).toBe(false);
  });

  test('the index URL defaults to the live map and can be stored', () => {
    sessionStorage.clear();
    expect(indexUrl()).toBe(DEFAULT_INDEX_PATH);
    expect(DEFAULT_INDEX_PATH).toBe('/dashboard/map');
    setIndexUrl('/dashboard/index');
    expect(indexUrl()).toBe('/dashboard/index');
    sessionStorage.clear();
  });

  test('"/" goes to the stored index URL, else to /dashboard/index (console-spec §2 routes)', () => {
    sessionStorage.clear();
    expect(rootRedirect()).toBe('/dashboard/index');
    expect(indexUrl()).toBe('/dashboard/map'); // signing in without a stored URL still opens the live map
    setIndexUrl('/report/alarm');
    expect(rootRedirect()).toBe('/report/alarm');
    sessionStorage.clear();
  });

  test('"/" falls back to the first page the user may open when the target is not theirs', () => {
    sessionStorage.clear();
    const page = (path: string, name: string): ServerRoute => ({ path, name, component: name, meta: { title: name }, children: [] });
    const both = flattenPages([page('/welcome', 'welcome'), page('/dashboard/index', 'dashboard/index')]);
    expect(homePath(both, rootRedirect())).toBe('/dashboard/index');
    const welcomeOnly = flattenPages([page('/welcome', 'welcome')]);
    expect(homePath(welcomeOnly, rootRedirect())).toBe('/welcome');
  });
});
