import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { fullScreenComponents, loadedModule, pageComponents, type PageLoader, type PageModule } from './components';

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
 * A lazy page that renders in the pass that first asks for it when its module is already in (the opening page,
 * which the boot waits for: router/prefetch.ts). React.lazy reads a thenable whose `then` answers at once as
 * resolved; a promise, even a settled one, answers a microtask later, so the page would suspend: its fallback
 * shows, and React then holds the page back until 300 ms after that fallback appeared (its throttle on revealing
 * suspended content), which left the main thread idle for 150-300 ms before a report's first rows (performance
 * target: a report's first rows <= 1 s).
 */
export function lazyPage(loader: PageLoader, timeoutMs = CHUNK_LOAD_TIMEOUT_MS): LazyExoticComponent<ComponentType> {
  const timed = withTimeout(loader, timeoutMs);
  return lazy(() => {
    const module = loadedModule(loader);
    if (!module) return timed();
    // React calls then(onFulfilled, onRejected) once and reads nothing else of it
    const resolved = { then: (onFulfilled: (value: PageModule) => unknown) => { onFulfilled(module); } };
    return resolved as unknown as Promise<PageModule>;
  });
}

function lazyAll(registry: Record<string, PageLoader>): Record<string, LazyExoticComponent<ComponentType>> {
  return Object.fromEntries(Object.entries(registry).map(([name, loader]) => [name, lazyPage(loader)]));
}

/** One lazy component per registry name, created once so React keeps page state across renders. */
export const lazyPages = lazyAll(pageComponents);
export const lazyFullScreenPages = lazyAll(fullScreenComponents);
