import { cleanup } from '@testing-library/react';
import { afterEach, vi } from 'vitest';

// Test files share their worker's modules and jsdom (vite.config.ts: isolate false, which halves the run):
// each file still starts from the console's own modules evaluated afresh (its stores, caches, i18n setup)
// and from empty storage, as in a page just opened. Libraries from node_modules (antd, React) stay loaded.
vi.resetModules();
if (typeof window !== 'undefined') {
  window.localStorage.clear();
  window.sessionStorage.clear();
}

// jsdom lacks matchMedia (antd's responsive grid and breakpoints use it): answer "wide desktop".
if (typeof window !== 'undefined' && !window.matchMedia) {
  window.matchMedia = (query: string): MediaQueryList =>
    ({
      matches: /min-width/.test(query),
      media: query,
      onchange: null,
      addListener: () => undefined,
      removeListener: () => undefined,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false,
    }) as MediaQueryList;
}

// jsdom lacks ResizeObserver (antd tabs, menus and overflow measure with it).
if (typeof window !== 'undefined' && !('ResizeObserver' in window)) {
  class ResizeObserverStub {
    observe(): void {}
    unobserve(): void {}
    disconnect(): void {}
  }
  (window as unknown as { ResizeObserver: typeof ResizeObserverStub }).ResizeObserver = ResizeObserverStub;
}

// Unmount what each test rendered (vitest runs without globals, so testing-library cannot do it itself).
afterEach(() => cleanup());
