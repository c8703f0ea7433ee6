import { createElement } from 'react';
import PageLoading from '../components/PageLoading';
import type { PageLoader } from './components';
import { usePage } from './lazyPage';

/** A page of the registry: the page once its code is in, a spinner until then (`usePage`). */
export default function LoadedPage({ loader, timeoutMs }: { loader: PageLoader; timeoutMs?: number }) {
  const page = usePage(loader, timeoutMs);
  // the module's own component, the same one each render: its state is kept
  return page ? createElement(page) : <PageLoading />;
}
