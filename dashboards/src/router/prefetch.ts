import { fetchMeta } from '../features/list/api';
import { session } from '../auth/session';
import { pageComponents, type PageLoader, type PageModule } from './components';
import { openFirstContent } from './firstContent';

/** A page module may name the entity its list reads (`export const ENTITY = 'carDayReport'`). */
type PrefetchablePage = PageModule & { ENTITY?: unknown };

/** The entity declaration of a signed-in user's opening list page, asked for as soon as its chunk is in. A
 * page that names no entity shows no list: the shell's deferred calls need not wait for its rows. */
export function prefetchEntityMeta(module: PrefetchablePage): Promise<unknown> | void {
  if (typeof module.ENTITY === 'string' && session.accessToken()) return fetchMeta(module.ENTITY, true);
  openFirstContent();
}

/**
 * The page chunk of the address the console opens on (a report, a list), fetched while the app boots. Without
 * it the page's chunk is asked for only after the user, the route map and the layout are in: one more round
 * trip of chunk loading before a report's first rows. With the chunk, the entity's meta is asked for too
 * (`prefetchEntityMeta`, cached by `fetchMeta`), so the list page finds it in instead of asking after the
 * layout has rendered (performance target: a report's first rows <= 1 s). The router's lazy page later
 * imports the same module (the browser keeps one copy); a failure here is left to that import to report.
 */
export function prefetchPage(pathname: string, pages: Record<string, PageLoader> = pageComponents,
  withModule: (module: PrefetchablePage) => unknown = prefetchEntityMeta): boolean {
  return openingPage(pathname, pages, withModule) !== null;
}

/** How long the first render waits for the opening page's code (`openingPage`). */
export const OPENING_PAGE_WAIT_MS = 400;

/**
 * `prefetchPage`, answering a promise that settles (never rejects) once the page's module is in and its meta
 * answered, or after `waitMs`; null for an address with no page. With the meta in, the first render draws the
 * list page's table at once (`knownMeta`) and its page query leaves right after that one render. The first render waits for it: the server
 * names the page's chunks in index.html (api/console_preload.py), so they are usually in by the time the
 * shell has run, and the meta call then leaves before the shell's first render instead of after it (that
 * render keeps the main thread for hundreds of ms on a cold load). The wait is bounded so a page without the
 * server's preload (the dev server, a slow chunk) still shows the shell at once after it.
 */
export function openingPage(pathname: string, pages: Record<string, PageLoader> = pageComponents,
  withModule: (module: PrefetchablePage) => unknown = prefetchEntityMeta, waitMs = OPENING_PAGE_WAIT_MS): Promise<void> | null {
  const loader = pages[pathname.replace(/^\/+|\/+$/g, '')];
  if (!loader) return null;
  const loaded = loader().then(withModule).then(() => undefined, () => openFirstContent());
  return Promise.race([loaded, new Promise<void>((resolve) => { setTimeout(resolve, waitMs); })]);
}
