import { useEffect, useState, type ComponentType } from 'react';
import { loadedModule, type PageLoader, type PageModule } from './components';

/** Console-spec §8: chunk loading fails after 120 seconds. */
export const CHUNK_LOAD_TIMEOUT_MS = 120_000;

export function withTimeout(loader: PageLoader, timeoutMs = CHUNK_LOAD_TIMEOUT_MS): PageLoader {
  return () =>
    new Promise<PageModule>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`chunk load timed out after ${timeoutMs} ms`)), timeoutMs);
      loader().then(
        (module) => {
          clearTimeout(timer);
          resolve(module);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
}

/**
 * The page component `loader` answers: at once when its module is in (the opening page, which the boot waits
 * for: router/prefetch.ts; a page opened before), else null until it arrives. A chunk that fails or does not
 * come within the timeout is thrown to the page's error boundary.
 *
 * Not React.lazy: a lazy page suspends even on a settled promise (it answers a microtask later), its fallback
 * shows, and React reveals content that suspended no sooner than 300 ms after a fallback appeared. That held
 * every page opened from the menu, and the opening page of a load, 150-300 ms with the main thread idle
 * (performance target: a report's first rows <= 1 s). A state update is not held back.
 */
export function usePage(loader: PageLoader, timeoutMs = CHUNK_LOAD_TIMEOUT_MS): ComponentType | null {
  const [state, setState] = useState<{ loader: PageLoader; module?: PageModule; error?: Error }>(
    () => ({ loader, module: loadedModule(loader) }));
  const current = state.loader === loader ? state : { loader, module: loadedModule(loader) };
  useEffect(() => {
    if (current.module || current.error) return undefined;
    let live = true;
    withTimeout(loader, timeoutMs)().then(
      (module) => { if (live) setState({ loader, module }); },
      (error: Error) => { if (live) setState({ loader, error }); },
    );
    return () => { live = false; };
  }, [loader, timeoutMs, current.module, current.error]);
  if (current.error) throw current.error;
  return current.module?.default ?? null;
}
