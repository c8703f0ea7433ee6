import { vi } from 'vitest';

/** A matchMedia whose reduced-motion answer the test sets and changes (the returned function changes it and tells
 * the listeners); other queries match only the min-width ones. Undo with vi.unstubAllGlobals(). */
export function systemMotion(reduced: boolean): (next: boolean) => void {
  const listeners = new Set<() => void>();
  const state = { reduced };
  vi.stubGlobal('matchMedia', (query: string) => ({
    get matches() { return query.includes('prefers-reduced-motion') ? state.reduced : /min-width/.test(query); },
    media: query,
    onchange: null,
    addListener: () => undefined,
    removeListener: () => undefined,
    addEventListener: (_type: string, listener: () => void) => listeners.add(listener),
    removeEventListener: (_type: string, listener: () => void) => listeners.delete(listener),
    dispatchEvent: () => false,
  }));
  return (next: boolean) => {
    state.reduced = next;
    listeners.forEach((listener) => listener());
  };
}
