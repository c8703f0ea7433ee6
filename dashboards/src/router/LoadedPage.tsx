import { createElement } from 'react';
import { useLoaded } from '../components/loadable';
import PageLoading from '../components/PageLoading';
import type { PageLoader } from './components';

/**
 * A page of the registry: the page once its code is in (at once for the opening page, which the boot waits for:
 * router/prefetch.ts, and for a page opened before), a spinner until then (components/loadable.tsx).
 */
export default function LoadedPage({ loader, timeoutMs }: { loader: PageLoader; timeoutMs?: number }) {
  const page = useLoaded(loader, timeoutMs)?.default;
  // the module's own component, the same one each render: its state is kept
  return page ? createElement(page) : <PageLoading />;
}
