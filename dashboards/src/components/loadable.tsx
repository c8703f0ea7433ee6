/**
 * Code loaded on first use, the one way of the console: the router's pages (router/LoadedPage.tsx) and the parts
 * of a page that bring a heavy library (the player of the media dialogs, ECharts, a second map, the route wizard).
 *
 * A loader remembers the module it answered (`remember`), so what is in renders in the same pass; what is not
 * shows its fallback and then itself by a state update. Not React.lazy: a lazy component suspends even on a
 * settled promise (it answers a microtask later), its Suspense fallback shows, and React reveals content that
 * suspended no sooner than 300 ms after a fallback appeared (performance target: a report's first rows <= 1 s;
 * a dialog a click opens shows at once). A chunk that fails, or does not come within the timeout, is thrown to the
 * nearest error boundary (console-spec §8: chunk loading fails after 120 seconds).
 */
import { createElement, useEffect, useState, type ComponentType } from 'react';

/** Console-spec §8: chunk loading fails after 120 seconds. */
export const CHUNK_LOAD_TIMEOUT_MS = 120_000;

export type Loader<M> = () => Promise<M>;

const loadedModules = new WeakMap<Loader<unknown>, unknown>();

/** The same loader, remembering the module it answered (whoever called it: a render or a prefetch). */
export function remember<M>(loader: Loader<M>): Loader<M> {
  const remembered: Loader<M> = () => loader().then((module) => {
    loadedModules.set(remembered, module);
    return module;
  });
  return remembered;
}

/** The module `loader` (one made by `remember`) has already answered, if it has. */
export function loadedModule<M>(loader: Loader<M>): M | undefined {
  return loadedModules.get(loader) as M | undefined;
}

/** `loader`, failing when its module has not come within `timeoutMs`. */
export function withTimeout<M>(loader: Loader<M>, timeoutMs = CHUNK_LOAD_TIMEOUT_MS): Loader<M> {
  return () =>
    new Promise<M>((resolve, reject) => {
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
 * The module `loader` answers: at once when it is in, else undefined until it arrives (one load however often the
 * caller renders). A failed or timed-out load is thrown to the caller's error boundary.
 */
export function useLoaded<M>(loader: Loader<M>, timeoutMs = CHUNK_LOAD_TIMEOUT_MS): M | undefined {
  const [state, setState] = useState<{ loader: Loader<M>; module?: M; error?: Error }>(
    () => ({ loader, module: loadedModule(loader) }));
  const current = state.loader === loader ? state : { loader, module: loadedModule(loader) };
  const waiting = current.module === undefined && current.error === undefined;
  useEffect(() => {
    if (!waiting) return undefined;
    let live = true;
    withTimeout(loader, timeoutMs)().then(
      (module) => { if (live) setState({ loader, module }); },
      (error: Error) => { if (live) setState({ loader, error }); },
    );
    return () => { live = false; };
  }, [loader, timeoutMs, waiting]);
  if (current.error) throw current.error;
  return current.module;
}

/**
 * A component whose code `loader` brings on first render: the `fallback` component (given the same props; none by
 * default) until then. The loaded component is the module's own, the same each render, so its state is kept.
 */
export function loadable<P extends object>(
  loader: Loader<ComponentType<P>>,
  fallback: ComponentType<P> | null = null,
): ComponentType<P> {
  const remembered = remember(loader);
  function Loadable(props: P) {
    const component = useLoaded(remembered);
    // both rendered as elements: the fallback's hooks are its own, not counted as the caller's
    if (component) return createElement(component, props);
    return fallback && createElement(fallback, props);
  }
  return Loadable;
}
