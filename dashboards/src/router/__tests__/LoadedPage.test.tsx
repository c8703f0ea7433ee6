import { render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { Boundary } from '../../test/Boundary';
import { withTimeout } from '../../components/loadable';
import { remembering } from '../components';
import LoadedPage from '../LoadedPage';

describe('a page of the registry', () => {
  it('renders in the first pass when its module is already in (the opening page the boot waited for)', async () => {
    const loader = vi.fn(() => Promise.resolve({ default: () => <b>daily mileage</b> }));
    const pages = remembering({ 'report/dailyMileage': loader });
    await pages['report/dailyMileage']();   // the boot's prefetch of the opening page
    // renderToString draws one pass: what the first render holds
    expect(renderToString(<LoadedPage loader={pages['report/dailyMileage']} />)).toBe('<b>daily mileage</b>');
    expect(loader).toHaveBeenCalledTimes(1);
  });

  it('shows the spinner until its module arrives, then the page, loading it once', async () => {
    let arrive: (module: { default: () => ReactNode }) => void = () => undefined;
    const loader = vi.fn(() => new Promise<{ default: () => ReactNode }>((resolve) => { arrive = resolve; }));
    const pages = remembering({ 'report/kpi': loader });
    const { container } = render(<LoadedPage loader={pages['report/kpi']} />);
    expect(container.querySelector('.ant-spin')).toBeTruthy();
    arrive({ default: () => <b>kpi</b> });
    expect(await screen.findByText('kpi')).toBeTruthy();
    expect(container.querySelector('.ant-spin')).toBeNull();
    expect(loader).toHaveBeenCalledTimes(1);
  });

  it('throws a chunk that does not come within the timeout to its error boundary (console-spec §8)', async () => {
    const pages = remembering({ 'report/online': () => new Promise<never>(() => undefined) });
    await expect(withTimeout(pages['report/online'], 20)()).rejects.toThrow('chunk load timed out after 20 ms');
    vi.spyOn(console, 'error').mockImplementation(() => undefined); // React reports the caught error
    render(<Boundary><LoadedPage loader={pages['report/online']} timeoutMs={20} /></Boundary>);
    expect(await screen.findByText('failed: chunk load timed out after 20 ms')).toBeTruthy();
  });
});
