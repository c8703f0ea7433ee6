import { describe, expect, it, vi } from 'vitest';
import { prefetchPage } from '../prefetch';

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
});
