import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, test, vi } from 'vitest';
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
