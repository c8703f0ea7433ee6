import { Suspense, useEffect } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router';
import PageErrorBoundary from '../../components/PageErrorBoundary';
import PageLoading from '../../components/PageLoading';
import { pageComponents } from '../../router/components';
import LoadedPage from '../../router/LoadedPage';
import { FORBIDDEN_PATH, indexUrl, NOT_FOUND_PATH, rootRedirect } from '../../router/paths';
import { findPage, homePath, isDenied, type PageRoute } from '../../router/routeTable';
import { useLayoutSettings } from '../settings/SettingsContext';
import { PageActiveContext } from './PageShown';
import { tabFor, type Tab } from './rules';
import { useTabs } from './TabsContext';

/** One page, rendered against its own tab's location so a hidden cached page keeps its own URL. */
function PageView({ page, tabKey }: { page: PageRoute; tabKey: string }) {
  const loader = pageComponents[page.component] ?? pageComponents['exception/404'];
  return (
    <Routes location={tabKey}>
      <Route
        path="*"
        element={
          <PageErrorBoundary>
            <Suspense fallback={<PageLoading />}>
              <LoadedPage loader={loader} />
            </Suspense>
          </PageErrorBoundary>
        }
      />
    </Routes>
  );
}

/**
 * The shell's content. With multi-tab on, pages of cacheable tabs stay mounted while hidden
 * (keep-alive); cacheAble=false pages mount only while active. A tab refresh changes the page's key
 * (so its cache is emptied) after showing a spinner for the refresh delay.
 */
export default function PageContent({ pages, deniedPaths }: { pages: PageRoute[]; deniedPaths?: string[] }) {
  const location = useLocation();
  const { settings } = useLayoutSettings();
  const { state, versions, reloading } = useTabs();
  const activeKey = `${location.pathname}${location.search}`;

  useEffect(() => {
    // Maps and charts in a page that was hidden measure themselves again.
    window.dispatchEvent(new Event('resize'));
  }, [activeKey]);

  const current = findPage(pages, location.pathname);
  // Console-spec §2: "/" goes to the stored index URL, else /dashboard/index (rootRedirect); either falls back to
  // the first page the user may open (homePath).
  if (location.pathname === '/') return <Navigate to={homePath(pages, rootRedirect())} replace />;
  if (!current && location.pathname === indexUrl()) return <Navigate to={homePath(pages, indexUrl())} replace />;
  // A screen the user has no right to is a 403 (platform-spec §1 exception pages); only unknown paths are 404s.
  if (!current) return <Navigate to={isDenied(deniedPaths, location.pathname) ? FORBIDDEN_PATH : NOT_FOUND_PATH} replace />;
  if (current.redirect) return <Navigate to={current.redirect} replace />;

  const activeTab = tabFor(current, location.pathname, location.search);
  const mounted: Tab[] = settings.multiTab
    ? state.tabs.filter((tab) => tab.key === activeKey || tab.cacheAble)
    : [activeTab];
  if (!mounted.some((tab) => tab.key === activeKey)) mounted.push(activeTab);

  const { animation } = settings;
  const animationClass = animation.disabled ? '' : `page-anim page-anim-${animation.effect}-${animation.direction}`;
  return (
    <>
      {mounted.map((tab) => {
        const page = findPage(pages, tab.pathname);
        const active = tab.key === activeKey;
        return (
          <div
            key={`${tab.key}#${versions[tab.key] ?? 0}`}
            className={active ? animationClass : undefined}
            style={{ display: active ? 'block' : 'none' }}
            data-page={tab.key}
          >
            <PageActiveContext.Provider value={active}>
              {reloading[tab.key] || !page ? <PageLoading /> : <PageView page={page} tabKey={tab.key} />}
            </PageActiveContext.Provider>
          </div>
        );
      })}
    </>
  );
}
