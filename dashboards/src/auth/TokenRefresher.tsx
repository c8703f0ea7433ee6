import { useEffect } from 'react';
import { refreshTokenIfNeeded } from './sessionService';
import { TOKEN_CHECK_INTERVAL_MS } from './tokenTiming';
import { useSession } from './useSession';

/** While signed in: check the token at once and every 5 minutes (console-spec §4 token lifecycle). */
export default function TokenRefresher() {
  const signedIn = useSession().token !== null;
  useEffect(() => {
    if (!signedIn) return undefined;
    void refreshTokenIfNeeded();
    const timer = window.setInterval(() => void refreshTokenIfNeeded(), TOKEN_CHECK_INTERVAL_MS);
    return () => window.clearInterval(timer);
  }, [signedIn]);
  return null;
}
