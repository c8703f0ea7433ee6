import { useEffect, type ReactNode } from 'react';
import { Navigate, useLocation, useSearchParams } from 'react-router';
import { logoutToLogin } from '../api/effects';
import { session } from '../auth/session';
import { loadCurrentUser } from '../auth/sessionService';
import { useSession } from '../auth/useSession';
import PageLoading from '../components/PageLoading';
import { currentFullPath, indexUrl, LOGIN_PATH, loginUrl, safeRedirect } from './paths';

/**
 * Console-spec §4 login flow: no token → login with redirect = the original full path; a token but
 * no permissions loaded yet → load them (routes and menu follow), then render the wanted page.
 */
export function RequireAuth({ children }: { children: ReactNode }) {
  const { token, user } = useSession();
  const location = useLocation();
  const needsUser = token !== null && user === null;

  useEffect(() => {
    if (!needsUser) return undefined;
    const controller = new AbortController();
    void loadCurrentUser(controller.signal).then((loaded) => {
      if (!loaded && !controller.signal.aborted && session.get().token) logoutToLogin();
    });
    return () => controller.abort();
  }, [needsUser]);

  // After the user's own logout the login page carries no redirect; after an expired session it does.
  if (!token) return <Navigate to={session.loggedOut() ? LOGIN_PATH : loginUrl(currentFullPath(location))} replace />;
  if (!user) return <PageLoading />;
  return <>{children}</>;
}

/**
 * A signed-in user opening the login page goes to the stored index URL — or, right after signing in,
 * to the page named by the redirect query.
 */
export function GuestOnly({ children }: { children: ReactNode }) {
  const { token, user } = useSession();
  const [params] = useSearchParams();
  if (token && user) return <Navigate to={safeRedirect(params.get('redirect'), indexUrl())} replace />;
  return <>{children}</>;
}
