/**
 * The opening page's first content, which the shell's own calls wait for: the notice overview and the
 * start-up dictionaries are not needed to show a report's first rows, so they neither take the browser's
 * connections nor its main thread before those rows (performance target: a report's first rows <= 1 s).
 *
 * The gate opens once, at the first of: a list page's first answer painted (`openFirstContent`), the
 * opening page turning out to be no list page (its chunk names no `ENTITY`, or the address has no page), or
 * FALLBACK_MS after the first caller waited (the user went elsewhere, the list never answered).
 */

import { useEffect, useState } from 'react';

export const FALLBACK_MS = 3000;

let opened = false;
let fallback: ReturnType<typeof setTimeout> | undefined;
const waiting = new Set<() => void>();

/** Opens the gate: every waiting call runs now, every later one at once. */
export function openFirstContent(): void {
  if (opened) return;
  opened = true;
  if (fallback !== undefined) clearTimeout(fallback);
  fallback = undefined;
  const callbacks = [...waiting];
  waiting.clear();
  callbacks.forEach((callback) => callback());
}

/** Runs ``callback`` once the first content is in (at once when it is); the returned function cancels it. */
export function afterFirstContent(callback: () => void): () => void {
  if (opened) {
    callback();
    return () => undefined;
  }
  waiting.add(callback);
  fallback ??= setTimeout(openFirstContent, FALLBACK_MS);
  return () => {
    waiting.delete(callback);
  };
}

/** A component's view of the gate: false until it opens, then true (re-rendering the component once). */
export function useFirstContent(): boolean {
  const [opened, setOpened] = useState(firstContentOpened);
  useEffect(() => (opened ? undefined : afterFirstContent(() => setOpened(true))), [opened]);
  return opened;
}

/** Whether the gate is open. */
export function firstContentOpened(): boolean {
  return opened;
}

/** Tests only: a closed gate again. */
export function resetFirstContent(): void {
  opened = false;
  if (fallback !== undefined) clearTimeout(fallback);
  fallback = undefined;
  waiting.clear();
}
