import { pageComponents, type PageLoader } from './components';

/**
 * The page chunk of the address the console opens on (a report, a list), fetched while the app boots. Without
 * it the page's chunk is asked for only after the user, the route map and the layout are in: one more round
 * trip of chunk loading before a report's first rows. The router's lazy page later imports the same module
 * (the browser keeps one copy); a failure here is left to that import to report.
 */
export function prefetchPage(pathname: string, pages: Record<string, PageLoader> = pageComponents): boolean {
  const loader = pages[pathname.replace(/^\/+|\/+$/g, '')];
  if (!loader) return false;
  void loader().catch(() => undefined);
  return true;
}
