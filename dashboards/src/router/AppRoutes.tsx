import { Suspense, type ComponentType } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import PageErrorBoundary from '../components/PageErrorBoundary';
import PageLoading from '../components/PageLoading';
import BasicLayout from '../layouts/BasicLayout';
import BlankLayout from '../layouts/BlankLayout';
import UserLayout from '../layouts/UserLayout';
import ApplyLicence from '../pages/user/ApplyLicence';
import Login from '../pages/user/Login';
import { GuestOnly, RequireAuth } from './guards';
import { lazyFullScreenPages } from './lazyPage';
import { COCKPIT_PATH, LOGIN_PATH, NEV1_COCKPIT_PATH } from './paths';

function FullScreen({ page: Page }: { page: ComponentType }) {
  return (
    <PageErrorBoundary>
      <Suspense fallback={<PageLoading />}>
        <Page />
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
        <Route path={COCKPIT_PATH} element={<FullScreen page={lazyFullScreenPages['cockpit/index']} />} />
        <Route path={NEV1_COCKPIT_PATH} element={<FullScreen page={lazyFullScreenPages['cockpit/nev1/index']} />} />
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
