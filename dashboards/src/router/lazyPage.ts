import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { fullScreenComponents, pageComponents, type PageLoader, type PageModule } from './components';

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

function lazyAll(registry: Record<string, PageLoader>): Record<string, LazyExoticComponent<ComponentType>> {
  return Object.fromEntries(Object.entries(registry).map(([name, loader]) => [name, lazy(withTimeout(loader))]));
}

/** One lazy component per registry name, created once so React keeps page state across renders. */
export const lazyPages = lazyAll(pageComponents);
export const lazyFullScreenPages = lazyAll(fullScreenComponents);
