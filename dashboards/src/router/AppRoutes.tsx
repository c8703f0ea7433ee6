import { Suspense } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { useSession } from '../auth/useSession';
import PageErrorBoundary from '../components/PageErrorBoundary';
import PageLoading from '../components/PageLoading';
import BasicLayout from '../layouts/BasicLayout';
import BlankLayout from '../layouts/BlankLayout';
import UserLayout from '../layouts/UserLayout';
import ApplyLicence from '../pages/user/ApplyLicence';
import ExceptionPage from '../pages/exception/ExceptionPage';
import Login from '../pages/user/Login';
import { GuestOnly, RequireAuth } from './guards';
import { fullScreenComponents, type PageLoader } from './components';
import LoadedPage from './LoadedPage';
import { COCKPIT_PATH, LOGIN_PATH, NEV1_COCKPIT_PATH } from './paths';
import { routeHeld } from './routeTable';

/** A full-screen page (a cockpit); one the user's route map does not hold says 403 (platform-spec §1 exception pages). */
function FullScreen({ page, path }: { page: PageLoader; path: string }) {
  const routes = useSession().user?.routes;
  if (!routeHeld(routes, path)) return <ExceptionPage status="403" />;
  return (
    <PageErrorBoundary>
      <Suspense fallback={<PageLoading />}>
        <LoadedPage loader={page} />
      </Suspense>
    </PageErrorBoundary>
  );
}

/**
 * Top-level routes: /user/login and /user/license (licence application) in the user layout; the cockpits full screen in the blank layout;
 * everything else in the basic layout, whose pages come from the server's route map (unknown
 * paths go to /404 there).
 */
export default function AppRoutes() {
  return (
    <Routes>
      <Route
        path="/user"
        element={
          <GuestOnly>
            <UserLayout />
          </GuestOnly>
        }
      >
        <Route index element={<Navigate to={LOGIN_PATH} replace />} />
        <Route path="login" element={<Login />} />
        <Route path="license" element={<ApplyLicence />} />
        {/* no catch-all: the other /user/... paths are the user management screens of the basic layout */}
      </Route>
      <Route
        element={
          <RequireAuth>
            <BlankLayout />
          </RequireAuth>
        }
      >
        <Route path={COCKPIT_PATH} element={<FullScreen page={fullScreenComponents['cockpit/index']} path={COCKPIT_PATH} />} />
        <Route path={NEV1_COCKPIT_PATH} element={<FullScreen page={fullScreenComponents['cockpit/nev1/index']} path={NEV1_COCKPIT_PATH} />} />
      </Route>
      <Route
        path="*"
        element={
          <RequireAuth>
            <BasicLayout />
          </RequireAuth>
        }
      />
    </Routes>
  );
}
