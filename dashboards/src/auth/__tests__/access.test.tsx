import { render, screen } from '@testing-library/react';
import { afterEach, describe, expect, test } from 'vitest';
import Access from '../Access';
import { actionsOf, can } from '../access';
import { session } from '../session';
import type { CurrentUser } from '../types';

const user: CurrentUser = {
  id: 1,
  userName: 'ops',
  permissions: [
    { code: 'car', actions: ['query', 'edit'] },
    { code: 'device', actions: ['query'] },
  ],
  routes: [],
};

afterEach(() => session.clear());

describe('actions', () => {
  test('can() checks code and action together', () => {
    expect(can(user.permissions, 'car', 'edit')).toBe(true);
    expect(can(user.permissions, 'device', 'edit')).toBe(false);
    expect(can(user.permissions, 'driver', 'query')).toBe(false);
    expect(can(undefined, 'car', 'query')).toBe(false);
  });

  test('edit (console) and update (server) are the same action', () => {
    const held = [
      { code: 'carModel', actions: ['query', 'update'] },
      { code: 'car', actions: ['edit'] },
    ];
    expect(can(held, 'carModel', 'edit')).toBe(true);
    expect(can(held, 'carModel', 'update')).toBe(true);
    expect(can(held, 'car', 'update')).toBe(true);
    expect(can(held, 'carModel', 'delete')).toBe(false);
    expect(can([{ code: 'carModel', actions: ['query'] }], 'carModel', 'edit')).toBe(false);
  });

  test('an action list stored as text is parsed', () => {
    expect(actionsOf({ code: 'x', actions: '["add","delete"]' })).toEqual(['add', 'delete']);
    expect(actionsOf({ code: 'x', actions: 'add, delete' })).toEqual(['add', 'delete']);
    expect(actionsOf({ code: 'x', actions: null })).toEqual([]);
  });

  test('<Access> hides what the user may not do', () => {
    session.setUser(user);
    render(
      <>
        <Access code="car" action="edit">
          <button>edit car</button>
        </Access>
        <Access code="device" action="delete" fallback={<span>no</span>}>
          <button>delete device</button>
        </Access>
      </>,
    );
    expect(screen.getByText('edit car')).toBeTruthy();
    expect(screen.queryByText('delete device')).toBeNull();
    expect(screen.getByText('no')).toBeTruthy();
  });
});
