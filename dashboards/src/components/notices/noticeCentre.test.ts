import { describe, expect, it, vi } from 'vitest';
import { MAX_TOASTS, NoticeCentre, TOAST_S } from './noticeCentre';

describe('the notification centre', () => {
  it('keeps every notice newest first, up to its capacity, and counts the unread', () => {
    const centre = new NoticeCentre(3);
    for (const n of [1, 2, 3, 4]) centre.add({ level: 'info', title: `n${n}`, content: null });
    expect(centre.list().map((n) => n.title)).toEqual(['n4', 'n3', 'n2']);
    expect(centre.unreadCount()).toBe(3);
    centre.markRead();
    expect(centre.unreadCount()).toBe(0);
  });

  it('replaces the notice with the same key (a newer state of the same thing)', () => {
    const centre = new NoticeCentre();
    centre.add({ level: 'info', title: 'a', content: null }, 'vehicle-state');
    centre.add({ level: 'error', title: 'b', content: null });
    centre.add({ level: 'info', title: 'c', content: null }, 'vehicle-state');
    expect(centre.list().map((n) => n.title)).toEqual(['c', 'b']);
  });

  it('tells its listeners and empties on clear', () => {
    const centre = new NoticeCentre();
    const listener = vi.fn();
    const stop = centre.subscribe(listener);
    centre.add({ level: 'warning', title: 'x', content: null });
    centre.clear();
    stop();
    centre.add({ level: 'warning', title: 'y', content: null });
    expect(listener).toHaveBeenCalledTimes(2);
    expect(centre.list()).toHaveLength(1);
  });

  it('shows few toasts at once, each closing itself', () => {
    expect(MAX_TOASTS).toBeLessThanOrEqual(2);
    expect(Object.values(TOAST_S).every((s) => s > 0 && s <= 10)).toBe(true);
  });
});
