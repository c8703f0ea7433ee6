import { fireEvent, render, screen } from '@testing-library/react';
import i18n from 'i18next';
import { afterEach, describe, expect, test, vi } from 'vitest';
import '../../../i18n';
import type { CatalogueEntry } from '../api';
import { grantable, toGrants, toMatrix } from '../grants';
import PermissionMatrix from '../PermissionMatrix';

/** The checkbox input of a matrix cell (antd puts the test id on its wrapper). */
function box(testId: string): HTMLInputElement {
  const element = screen.getByTestId(testId);
  return (element instanceof HTMLInputElement ? element : element.querySelector('input')) as HTMLInputElement;
}

const CATALOGUE: CatalogueEntry[] = [
  { code: 'monitor', name: '实时监控', actions: ['query', 'get', 'cmd', 'video'] },
  { code: 'user', name: '用户管理', actions: ['add', 'query', 'enable'] },
];

describe('the role editor grants what the catalogue offers and the administrator holds', () => {
  test('a box is offered only for an action of the code the administrator holds', () => {
    const held = toMatrix([{ code: 'monitor', actions: ['query', 'get'] }]);
    expect(grantable(CATALOGUE[0], 'query', held)).toBe(true);
    expect(grantable(CATALOGUE[0], 'cmd', held)).toBe(false); // offered, not held
    expect(grantable(CATALOGUE[1], 'add', held)).toBe(false); // another code
    expect(grantable(CATALOGUE[0], 'add', toMatrix([{ code: 'monitor', actions: ['add'] }]))).toBe(false); // not offered
  });

  test('the saved grants leave out codes without actions and sort the actions', () => {
    expect(toGrants({ user: [], monitor: ['query', 'get'] })).toEqual([{ code: 'monitor', actions: ['get', 'query'] }]);
  });

  test('ticking an offered box adds the action; boxes the administrator lacks are disabled', () => {
    const onChange = vi.fn();
    render(<PermissionMatrix catalogue={CATALOGUE} held={toMatrix([{ code: 'monitor', actions: ['query', 'get'] }])}
      value={{ monitor: ['get'] }} onChange={onChange} />);
    expect(box('grant-monitor-get').checked).toBe(true);
    expect(box('grant-monitor-cmd').disabled).toBe(true);
    expect(box('grant-user-add').disabled).toBe(true);
    expect(box('grant-monitor-query').disabled).toBe(false);
    expect(screen.queryByTestId('grant-user-get')).toBeNull(); // user offers no get
    fireEvent.click(box('grant-monitor-query'));
    expect(onChange).toHaveBeenCalledWith({ monitor: ['get', 'query'] });
  });
});

describe('the role editor shows what each right opens', () => {
  const OPENING: CatalogueEntry[] = [
    {
      code: 'monitor', name: '实时监控', actions: ['query', 'video'],
      opens: [{ title: 'menu.dashboard.map', action: '' }, { title: 'menu.dashboard.monitor', action: 'video' }],
      implies: [{ code: 'car', actions: ['query'] }, { code: 'gps', actions: ['get', 'query'] }],
    },
    { code: 'car', name: '车辆管理', actions: ['query'], opens: [{ title: 'menu.list.car', action: '' }], implies: [] },
    { code: 'gps', name: '轨迹数据', actions: ['get', 'query'], opens: [], implies: [] },
  ];
  const show = () => render(<PermissionMatrix catalogue={OPENING} held={{}} value={{}} />);
  afterEach(async () => {
    await i18n.changeLanguage('zh-CN');
  });

  test.each([
    ['zh-CN', '页面: 实时监控, 视频监控 (视频)', '附带读取: 车辆管理 (列表), 轨迹数据 (详情, 列表)', '无页面'],
    ['zh-HK', '頁面: ', '附帶讀取: 车辆管理 (', '無頁面'],
    ['en-US', 'Screens: ', 'Also reads: 车辆管理 (', 'No screen'],
  ])('in %s: the screens, the reads they bring, and a right opening none', async (language, screens, reads, none) => {
    await i18n.changeLanguage(language);
    show();
    expect(screen.getByTestId('opens-monitor').textContent).toContain(screens);
    expect(screen.getByTestId('implies-monitor').textContent).toContain(reads);
    expect(screen.getByTestId('opens-gps').textContent).toBe(none);
    expect(screen.queryByTestId('implies-car')).toBeNull();
  });
});
