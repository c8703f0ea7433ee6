/**
 * Window events that let any part of the console close or refresh a tab (console-spec §2):
 * `page:close` and `page:refresh`, with an optional detail {key: full path}; no key means the active tab.
 */
export const PAGE_CLOSE_EVENT = 'page:close';
export const PAGE_REFRESH_EVENT = 'page:refresh';
/** Delay before a refreshed tab remounts (console-spec §9). */
export const TAB_REFRESH_DELAY_MS = 200;
/** Delay before the locked tab bar is pinned (console-spec §2). */
export const TAB_AFFIX_DELAY_MS = 200;

export interface PageEventDetail {
  key?: string;
}

export function closePage(key?: string): void {
  window.dispatchEvent(new CustomEvent<PageEventDetail>(PAGE_CLOSE_EVENT, { detail: { key } }));
}

export function refreshPage(key?: string): void {
  window.dispatchEvent(new CustomEvent<PageEventDetail>(PAGE_REFRESH_EVENT, { detail: { key } }));
}

export function eventKey(event: Event): string | undefined {
  const detail = (event as CustomEvent<PageEventDetail | string | undefined>).detail;
  if (typeof detail === 'string') return detail;
  return detail?.key;
}
