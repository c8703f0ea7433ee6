import type { ComponentType } from 'react';
import { remember } from '../components/loadable';

/**
 * Server route maps name their page by `component`; this registry turns that name into a lazy import.
 * A name missing here renders the 404 page (layouts/tabs/PageContent.tsx falls back to `exception/404`).
 */
export type PageModule = { default: ComponentType };
export type PageLoader = () => Promise<PageModule>;

/**
 * Screens are found by file name, no registry edit needed: `src/screens/<area>/<name>.tsx` is the page
 * `<area>/<name>` (e.g. `screens/list/carModel.tsx` is `list/carModel`).
 */
export function screenPages(modules: Record<string, PageLoader>): Record<string, PageLoader> {
  const pages: Record<string, PageLoader> = {};
  for (const [path, loader] of Object.entries(modules)) {
    const match = /\/screens\/(.+)\.tsx$/.exec(path);
    if (match) pages[match[1]] = loader;
  }
  return pages;
}

/** The same loaders, each remembering the module it answered (whoever called it: the router or the prefetch). */
export function remembering(pages: Record<string, PageLoader>): Record<string, PageLoader> {
  return Object.fromEntries(Object.entries(pages).map(([name, loader]) => [name, remember(loader)]));
}

export const pageComponents: Record<string, PageLoader> = remembering({
  ...screenPages(import.meta.glob<PageModule>('../screens/**/*.tsx')),
  'dashboard/map': () => import('../features/map/MapPage'),
  'dashboard/index': () => import('../features/dashboard/IndexPage'),
  'account/center': () => import('../pages/account/AccountCenter'),
  'account/settings': () => import('../pages/account/AccountSettings'),
  'exception/403': () => import('../pages/exception/Exception403'),
  'exception/404': () => import('../pages/exception/Exception404'),
  'exception/500': () => import('../pages/exception/Exception500'),
  'result/fail': () => import('../pages/result/FailResult'),
});

/** Full-screen pages opened in a new browser tab, outside the shell. */
export const fullScreenComponents: Record<string, PageLoader> = remembering({
  'cockpit/index': () => import('../pages/cockpit/CockpitIndex'),
  'cockpit/nev1/index': () => import('../pages/cockpit/Nev1CockpitIndex'),
});
