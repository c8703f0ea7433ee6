import { describe, expect, it, vi } from 'vitest';
import { openingPage, prefetchPage } from '../prefetch';

describe('the page chunk of the opening address', () => {
  it('is fetched at boot for a page of the registry, and nothing else is', () => {
    const report = vi.fn(() => Promise.resolve({ default: () => null }));
    const pages = { 'report/dailyMileage': report };
    expect(prefetchPage('/report/dailyMileage', pages)).toBe(true);
    expect(report).toHaveBeenCalledTimes(1);
    expect(prefetchPage('/user/login', pages)).toBe(false);
    expect(prefetchPage('/', pages)).toBe(false);
  });

  it('asks for the entity meta of a page that names its entity, once its chunk is in', async () => {
    const seen: unknown[] = [];
    const report = () => Promise.resolve({ default: () => null, ENTITY: 'carDayReport' });
    expect(prefetchPage('/report/dailyMileage', { 'report/dailyMileage': report }, (module) => seen.push(module.ENTITY))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(seen).toEqual(['carDayReport']);
  });

  it('leaves a failed fetch to the router\'s own import (no unhandled rejection)', async () => {
    const failing = vi.fn(() => Promise.reject(new Error('offline')));
    expect(prefetchPage('/report/kpi/', { 'report/kpi': failing })).toBe(true);
    await Promise.resolve();
    expect(failing).toHaveBeenCalledTimes(1);
  });

  it('lets the first render wait for the opening page at most the given time, and not at all for no page', async () => {
    vi.useFakeTimers();
    try {
      const never = () => new Promise<never>(() => undefined);
      const opening = openingPage('/report/kpi', { 'report/kpi': never }, () => undefined, 400);
      expect(openingPage('/user/login', { 'report/kpi': never })).toBeNull();
      let settled = false;
      void opening?.then(() => { settled = true; });
      await vi.advanceTimersByTimeAsync(399);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(settled).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('settles as soon as the page module is in and its meta asked for', async () => {
    const seen: unknown[] = [];
    const report = () => Promise.resolve({ default: () => null, ENTITY: 'carDayReport' });
    await openingPage('/report/dailyMileage', { 'report/dailyMileage': report }, (module) => seen.push(module.ENTITY), 60_000);
    expect(seen).toEqual(['carDayReport']);
  });

  it('settles once the meta is answered, so the first render draws the table; not before', async () => {
    let answer: (reply: unknown) => void = () => undefined;
    const meta = new Promise((resolve) => { answer = resolve; });
    const report = () => Promise.resolve({ default: () => null, ENTITY: 'carDayReport' });
    let settled = false;
    void openingPage('/report/dailyMileage', { 'report/dailyMileage': report }, () => meta, 60_000)?.then(() => { settled = true; });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(settled).toBe(false);
    answer({ code: 0 });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(settled).toBe(true);
  });
});
