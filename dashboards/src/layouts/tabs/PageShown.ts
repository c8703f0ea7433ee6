/**
 * Whether the page a component sits in is on screen: its tab is the active one (a cached tab stays
 * mounted while hidden, keep-alive) and the browser tab is visible. Pages that cost while shown (live
 * video: the terminal's data plan) stop what they run when this stays false (features/video).
 */
import { createContext, useContext, useEffect, useState } from 'react';

/** Set by PageContent for every mounted page: true for the active tab's page. */
export const PageActiveContext = createContext(true);

const documentVisible = () => typeof document === 'undefined' || document.visibilityState !== 'hidden';

export function usePageShown(): boolean {
  const active = useContext(PageActiveContext);
  const [visible, setVisible] = useState(documentVisible);
  useEffect(() => {
    const update = () => setVisible(documentVisible());
    document.addEventListener('visibilitychange', update);
    return () => document.removeEventListener('visibilitychange', update);
  }, []);
  return active && visible;
}
