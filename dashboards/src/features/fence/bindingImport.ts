/**
 * The binding import (platform-spec §2 lists "import"; `POST /api/fence/binding/import.json`, `fence:import`):
 * a sheet of fence name and plate number rows, each bound or refused with its reason. The server answers at
 * once (no job to poll), so its reply becomes the import dialog's events in one go; the template is written
 * here, as the route reads it.
 */
import { http } from '../../api/client';
import type { ApiReply } from '../../api/types';
import type { ImportRowError } from '../list/api';
import type { ImportEvent, Importer } from '../list/importJob';
import { toXlsx, XLSX_TYPE } from '../list/sheetFile';

export interface BindingImportReply {
  total: number;
  bound: number;
  errors: ImportRowError[];
}

/** The headers the route reads (api/routes/fences.py FENCE_HEADERS / PLATE_HEADERS): the Chinese pair, or the
 * field names for an English console. Not translations: the server knows only these. */
export function templateHeader(language: string): string[] {
  return language.startsWith('en') ? ['fenceName', 'plateNumber'] : ['围栏名称', '车牌号'];
}

/** The template: the header, and a first row naming the fence when the import is opened on one. */
export function bindingTemplate(language: string, fenceName?: string): { blob: Blob; fileName: string } {
  const rows = fenceName ? [[fenceName, '']] : [];
  const bytes = toXlsx(templateHeader(language), rows);
  return { blob: new Blob([bytes as BlobPart], { type: XLSX_TYPE }), fileName: 'fenceBinding-template.xlsx' };
}

/** The dialog's events for the route's reply: a refused file (no header, too many rows) fails the import with
 * the server's message; otherwise it is done at once, every row processed, the new bindings as "created" (a
 * row binding a vehicle already bound is neither created nor refused). */
export function bindingImportEvents(reply: ApiReply<BindingImportReply | null>): ImportEvent[] {
  if (reply.code !== 0 || !reply.data) return [{ type: 'error', message: reply.message }];
  const { total, bound, errors } = reply.data;
  return [
    { type: 'started', jobId: '', total },
    { type: 'status', status: { state: 'done', total, processed: total, created: bound, failed: errors.length, errors } },
  ];
}

export function postBindingImport(file: File) {
  const form = new FormData();
  form.append('file', file);
  return http.post<BindingImportReply | null>('/api/fence/binding/import.json', { body: form });
}

/** The import dialog's runner for fence bindings (`fenceName`: the fence the dialog was opened on, if any). */
export function bindingImporter(language: string, fenceName?: string): Importer {
  return {
    run: async (file, dispatch, { signal }) => {
      dispatch({ type: 'upload' });
      const reply = await postBindingImport(file);
      if (signal.aborted) return;
      bindingImportEvents(reply).forEach(dispatch);
    },
    template: () => Promise.resolve(bindingTemplate(language, fenceName)),
  };
}
