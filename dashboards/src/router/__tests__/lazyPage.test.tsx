import { Suspense } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { remembering } from '../components';
import { lazyPage, withTimeout } from '../lazyPage';

// renderToString draws one pass and shows the fallback of whatever suspends in it: the page's first render.
function firstPass(Page: React.ComponentType): string {
  return renderToString(<Suspense fallback={<i>loading</i>}><Page /></Suspense>);
}

describe('a lazy page', () => {
  it('renders in the first pass when its module is already in (the opening page the boot waited for)', async () => {
    const loader = vi.fn(() => Promise.resolve({ default: () => <b>daily mileage</b> }));
    const pages = remembering({ 'report/dailyMileage': loader });
    await pages['report/dailyMileage']();   // the boot's prefetch of the opening page
    const Page = lazyPage(pages['report/dailyMileage']);
    const html = firstPass(Page);
    expect(html).toContain('<b>daily mileage</b>');
    expect(html).not.toContain('loading');
    expect(loader).toHaveBeenCalledTimes(1);
  });

  it('suspends on a module not yet in, and loads it once', async () => {
    const loader = vi.fn(() => Promise.resolve({ default: () => <b>kpi</b> }));
    const pages = remembering({ 'report/kpi': loader });
    const Page = lazyPage(pages['report/kpi']);
    expect(firstPass(Page)).toContain('loading');
    await vi.waitFor(() => expect(firstPass(Page)).toContain('<b>kpi</b>'));
    expect(loader).toHaveBeenCalledTimes(1);
  });

  it('fails a chunk that does not come within the timeout (console-spec §8), and remembers none', async () => {
    const pages = remembering({ 'report/online': () => new Promise<never>(() => undefined) });
    await expect(withTimeout(pages['report/online'], 20)()).rejects.toThrow('chunk load timed out after 20 ms');
    expect(firstPass(lazyPage(pages['report/online']))).toContain('loading');
  });
});
