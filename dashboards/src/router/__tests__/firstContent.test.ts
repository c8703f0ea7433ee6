import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { session } from '../../auth/session';
import { afterFirstContent, FALLBACK_MS, firstContentOpened, openFirstContent, resetFirstContent } from '../firstContent';
import { prefetchEntityMeta, prefetchPage } from '../prefetch';

beforeEach(() => {
  resetFirstContent();
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
  resetFirstContent();
});

describe("the shell's calls that wait for the opening page's first rows", () => {
  it('run when the list page opens the gate, not before; later ones at once', () => {
    const notices = vi.fn();
    afterFirstContent(notices);
    vi.advanceTimersByTime(FALLBACK_MS - 1);
    expect(notices).not.toHaveBeenCalled();
    openFirstContent();
    expect(notices).toHaveBeenCalledTimes(1);
    const later = vi.fn();
    afterFirstContent(later);
    expect(later).toHaveBeenCalledTimes(1);
    openFirstContent();
    expect(notices).toHaveBeenCalledTimes(1);
  });

  it('run after the fallback when no rows ever come (the user went elsewhere, the list failed)', () => {
    const dictionaries = vi.fn();
    afterFirstContent(dictionaries);
    vi.advanceTimersByTime(FALLBACK_MS);
    expect(dictionaries).toHaveBeenCalledTimes(1);
    expect(firstContentOpened()).toBe(true);
  });

  it('a cancelled call (the shell unmounted, sign-out) does not run', () => {
    const dictionaries = vi.fn();
    const cancel = afterFirstContent(dictionaries);
    cancel();
    openFirstContent();
    expect(dictionaries).not.toHaveBeenCalled();
  });

  it('do not wait when the opening page shows no list: a page naming no entity, or a failed chunk', async () => {
    prefetchEntityMeta({ default: () => null });
    expect(firstContentOpened()).toBe(true);
    resetFirstContent();
    vi.useRealTimers();
    prefetchPage('/report/kpi', { 'report/kpi': () => Promise.reject(new Error('offline')) });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(firstContentOpened()).toBe(true);
  });

  it('wait on a signed-in report page, whose chunk names its entity', () => {
    vi.spyOn(session, 'accessToken').mockReturnValue('token');
    vi.stubGlobal('fetch', vi.fn(() => new Promise(() => undefined))); // the meta's answer is not needed here
    prefetchEntityMeta({ default: () => null, ENTITY: 'carDayReport' });
    expect(firstContentOpened()).toBe(false);
    vi.unstubAllGlobals();
  });
});
