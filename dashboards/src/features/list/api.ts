import { download, http, type DownloadProgress, type QueryValue } from '../../api/client';
import type { ApiReply } from '../../api/types';
import type { EntityMeta, ListPageReply, ListRecord } from './types';

/** The generic entity routes (api/routes/common.py, import/export: api/routes/spreadsheets.py). */
const base = '/api/common';

const metaCache = new Map<string, Promise<ApiReply<EntityMeta>>>();
/** The declarations already answered: a list page opened after its meta is in renders its table in its first
 * render, without a spinner pass first (performance target: a report's first rows <= 1 s). */
const metaKnown = new Map<string, EntityMeta>();

/** The server's declaration of the entity, fetched once per session and entity (a failure is retried). */
export function fetchMeta(entity: string, quiet = false): Promise<ApiReply<EntityMeta>> {
  let pending = metaCache.get(entity);
  if (!pending) {
    pending = http.get<EntityMeta>(`${base}/meta/${entity}.json`, { quiet });
    metaCache.set(entity, pending);
    void pending.then((reply) => {
      if (reply.code !== 0) metaCache.delete(entity);
      else metaKnown.set(entity, reply.data);
    });
  }
  return pending;
}

/** The entity's declaration if `fetchMeta` has it answered already. */
export function knownMeta(entity: string): EntityMeta | undefined {
  return metaKnown.get(entity);
}

export function clearMetaCache(): void {
  metaCache.clear();
  metaKnown.clear();
}

export interface PageParams extends Record<string, QueryValue> {
  pageNo: number;
  pageSize: number;
  orderBy?: string;
  desc?: boolean;
}

export function queryPage(entity: string, params: PageParams, body: Record<string, unknown>, signal?: AbortSignal) {
  return http.post<ListPageReply>(`${base}/query/${entity}.json`, { params: { ...params, countable: true }, body, signal });
}

/** Saves are quiet: the form shows the server's message on the field it names, or as a notice. */
export function createRecord(entity: string, body: Record<string, unknown>) {
  return http.post<ListRecord>(`${base}/${entity}.json`, { body, quiet: true });
}

export function updateRecord(entity: string, id: unknown, body: Record<string, unknown>) {
  return http.patch<ListRecord>(`${base}/${entity}/${String(id)}.json`, { body, quiet: true });
}

/** Quiet: bulk delete reports its failures together. */
export function deleteRecord(entity: string, id: unknown) {
  return http.delete<{ id: number }>(`${base}/${entity}/${String(id)}.json`, { quiet: true });
}

/** Deletes one record after another; the failures, with the server's reasons. */
export async function deleteAll(entity: string, ids: unknown[]): Promise<{ id: unknown; message: string }[]> {
  const failures: { id: unknown; message: string }[] = [];
  for (const id of ids) {
    const reply = await deleteRecord(entity, id);
    if (reply.code !== 0) failures.push({ id, message: reply.message });
  }
  return failures;
}

/** The field that names a record of the entity: `name`, else its first listable text field. */
export function labelField(meta: EntityMeta): string {
  const named = meta.fields.find((f) => f.name === 'name' && f.listable);
  return (named ?? meta.fields.find((f) => f.type === 'str' && f.listable))?.name ?? meta.idField;
}

export interface RefOption {
  value: number | string;
  label: string;
}

/** Options of a reference field: each record of the referenced entity as (id, its name). Quiet: a user
 * who may not list that entity gets an empty choice, and the server still checks the saved id. */
export async function refOptions(entity: string, signal?: AbortSignal, extra?: Record<string, QueryValue>): Promise<RefOption[]> {
  const meta = await fetchMeta(entity, true);
  if (meta.code !== 0 || signal?.aborted) return [];
  const { idField } = meta.data;
  const label = labelField(meta.data);
  const reply = await http.post<ListPageReply>(`${base}/query/${entity}.json`, {
    params: { ...extra, select: [...new Set([idField, label])].join(','), pageNo: 1, pageSize: 1000, orderBy: label },
    body: {},
    signal,
    quiet: true,
  });
  if (reply.code !== 0 || !reply.data) return [];
  return reply.data.list.map((r) => ({ value: r[idField] as number | string, label: String(r[label] ?? r[idField]) }));
}

export interface ImportStarted {
  jobId: string;
  total: number;
}

/** A refused row: `message` is the Chinese text, `localMessage` the text in the console's language (as an error reply). */
export interface ImportRowError {
  row: number;
  field?: string | null;
  message: string;
  localMessage?: string;
}

/** The text of a row error or a failed job to show: the caller's language, else the Chinese text. */
export function shownMessage(item: { message?: string; localMessage?: string }): string {
  return item.localMessage ?? item.message ?? '';
}

export interface ImportStatus {
  state: 'running' | 'done' | 'failed';
  total: number;
  processed: number;
  created: number;
  failed: number;
  errors: ImportRowError[];
  message?: string;
  localMessage?: string;
}

export function startImport(entity: string, file: File) {
  const form = new FormData();
  form.append('file', file);
  return http.post<ImportStarted>(`${base}/import/${entity}.json`, { body: form });
}

export function importStatus(entity: string, jobId: string, signal?: AbortSignal) {
  return http.get<ImportStatus>(`${base}/import/${entity}/${encodeURIComponent(jobId)}.json`, { signal });
}

export function importTemplate(entity: string) {
  return download(`${base}/import/${entity}/template.xlsx`, `${entity}-template.xlsx`);
}

export type ExportFormat = 'xlsx' | 'csv';

/** The current list (same filters and order, every page) as a spreadsheet. */
export function exportList(entity: string, format: ExportFormat, params: Record<string, QueryValue>, body: Record<string, unknown>,
  options: { signal?: AbortSignal; onProgress?: DownloadProgress } = {}) {
  return download(`${base}/export/${entity}.${format}`, `${entity}.${format}`, { method: 'POST', params, body, ...options });
}

/** Hands a downloaded blob to the browser as a file. */
export function saveFile(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = fileName;
  document.body.appendChild(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
