/**
 * The analyst notebooks rendered on the lake (api/routes/analysis.py, docs/reports.md §9): the list, one page,
 * and which page the screen opens.
 */
import { http } from '../../api/client';

export interface NotebookEntry {
  name: string;
  title: string;
  renderedAt: string | null;
  error: string | null;
}

export interface NotebookPage {
  name: string;
  title: string;
  renderedAt: string | null;
  html: string;
}

/** GET /api/analysis/notebooks.json; quiet: the screen says why it has nothing (403: root enterprise only). */
export function listNotebooks(signal?: AbortSignal) {
  return http.get<NotebookEntry[]>('/api/analysis/notebooks.json', { signal, quiet: true });
}

export function notebookPage(name: string, signal?: AbortSignal) {
  return http.get<NotebookPage>(`/api/analysis/notebooks/${encodeURIComponent(name)}.json`, { signal, quiet: true });
}

/** A notebook that has a page: rendered at least once (a later failure keeps the previous page). */
export function hasPage(entry: NotebookEntry): boolean {
  return Boolean(entry.renderedAt);
}

/** The page to show: the one asked for (`?name=`) when it has a page, else the first that has one. */
export function pickNotebook(entries: NotebookEntry[], wanted: string | null): string | undefined {
  const asked = entries.find((e) => e.name === wanted && hasPage(e));
  return (asked ?? entries.find(hasPage))?.name;
}
