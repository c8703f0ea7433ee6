import { act, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { Boundary } from '../../test/Boundary';
import { loadable } from '../loadable';

function Counter({ label }: { label: string }) {
  const [count, setCount] = useState(0);
  return <button onClick={() => setCount(count + 1)}>{`${label} ${count}`}</button>;
}

/** A fallback with hooks of its own (a dialog's frame reads its title's translation), more than the part has. */
function Waiting({ label }: { label: string }) {
  const [what] = useState('loading');
  const [dots] = useState('...');
  return <i>{`${what} ${label}${dots}`}</i>;
}

describe('a part loaded on first use', () => {
  it('shows its fallback (a component of its own, given the same props) until its code is in, then itself; the code loads once', async () => {
    let arrive: (component: typeof Counter) => void = () => undefined;
    const loader = vi.fn(() => new Promise<typeof Counter>((resolve) => { arrive = resolve; }));
    const Part = loadable(loader, Waiting);
    const { rerender } = render(<Part label="listen" />);
    expect(screen.getByText('loading listen...')).toBeTruthy();
    rerender(<Part label="listen" />);
    await act(async () => arrive(Counter));
    expect(screen.getByText('listen 0')).toBeTruthy();
    expect(screen.queryByText('loading listen...')).toBeNull();
    screen.getByText('listen 0').click();
    rerender(<Part label="talk" />);
    expect(await screen.findByText('talk 1')).toBeTruthy(); // the same component each render: its state is kept
    expect(loader).toHaveBeenCalledTimes(1);
  });

  it('renders in the first pass once its code came for an earlier use (no fallback, no wait)', async () => {
    const loader = vi.fn(() => Promise.resolve(Counter));
    const Part = loadable(loader, () => <i>loading</i>);
    const first = render(<Part label="video" />);
    expect(await screen.findByText('video 0')).toBeTruthy();
    first.unmount();
    // renderToString draws one pass: what the first render holds
    expect(renderToString(<Part label="video" />)).toBe('<button>video 0</button>');
    expect(loader).toHaveBeenCalledTimes(1);
  });

  it('throws code that fails to load to its error boundary', async () => {
    const Part = loadable<{ label: string }>(() => Promise.reject(new Error('Failed to fetch dynamically imported module')));
    vi.spyOn(console, 'error').mockImplementation(() => undefined); // React reports the caught error
    render(<Boundary><Part label="chart" /></Boundary>);
    expect(await screen.findByText('failed: Failed to fetch dynamically imported module')).toBeTruthy();
  });
});
