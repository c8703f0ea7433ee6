/**
 * Export of a list with progress: the entity's server export (bytes as they arrive), or, for a list whose
 * pages come from a report call (ListScreen.fetchPage), every page fetched in turn and written in the
 * browser (rows fetched of the total).
 */
import type { QueryValue } from '../../api/client';
import { exportList, saveFile, type ExportFormat } from './api';
import { toCsv, toXlsx, XLSX_TYPE, type Cell } from './sheetFile';
import type { ColumnPlan } from './model';
import type { FieldMeta, ListRecord, PageSource } from './types';

/** How far an export is: `done` of `total` (null: unknown) in bytes or rows. */
export interface ExportProgress {
  done: number;
  total: number | null;
  unit: 'bytes' | 'rows';
}

export type Exporter = (format: ExportFormat, onProgress: (p: ExportProgress) => void, signal: AbortSignal) => Promise<boolean>;

/** Rows per page when paging through a report call for an export (the API's page maximum). */
export const EXPORT_PAGE_SIZE = 1000;
/** An export in the browser stops there (the server's default export cap). */
export const EXPORT_MAX_ROWS = 100_000;

/** The entity's own export (POST /api/common/export/{entity}.{format}). */
export function serverExporter(entity: string, params: Record<string, QueryValue>, body: Record<string, unknown>): Exporter {
  return async (format, onProgress, signal) => {
    const file = await exportList(entity, format, params, body, {
      signal,
      onProgress: (received, total) => onProgress({ done: received, total, unit: 'bytes' }),
    });
    if (!file) return false;
    saveFile(file.blob, file.fileName);
    return true;
  };
}

/** A plain decimal (no leading zero, at most 15 digits before the point: exact as a double). */
const DECIMAL = /^-?(0|[1-9]\d{0,14})(\.\d+)?$/;

/** A cell of a browser-written file from a column's text: a number a column rendered as text ("240.8")
 * stays a number (sums and sorts in a spreadsheet); an identifier with a leading zero or too many digits
 * (a SIM, an ID card) and anything else stays text. */
export function exportCell(text: string): Cell {
  return DECIMAL.test(text) ? Number(text) : text;
}

export interface ExportColumn {
  title: string;
  value: (record: ListRecord) => Cell;
}

/** The export's columns (a list written in the browser): the table's, each cell the text the table shows
 * (`text`: the field's display, an enum's label, a time; a number stays a number); a rendered or computed
 * column exports what its render gives when that is text or a number. */
export function exportColumns(plan: ColumnPlan[], text: (field: FieldMeta, value: unknown) => string,
  title: (field: FieldMeta, decl: ColumnPlan['decl']) => string): ExportColumn[] {
  return plan.map(({ field, decl, computed }) => ({
    title: title(field, decl),
    value: (record: ListRecord) => {
      if (computed || decl?.render) {
        const out = decl?.render?.(record[field.name], record);
        if (typeof out === 'number') return out;
        if (typeof out === 'string') return exportCell(out);
        if (computed) return '';
      }
      return exportCell(text(field, record[field.name]));
    },
  }));
}

/** Every page of a report call, then the file written here. */
export function pageExporter(source: PageSource, params: Record<string, unknown>, body: Record<string, unknown>,
  columns: ExportColumn[], fileName: string): Exporter {
  return async (format, onProgress, signal) => {
    const rows: ListRecord[] = [];
    for (let pageNo = 1; rows.length < EXPORT_MAX_ROWS; pageNo += 1) {
      const reply = await source({ ...params, pageNo, pageSize: EXPORT_PAGE_SIZE }, body, signal);
      if (signal.aborted || reply.code !== 0 || !reply.data) return false;
      const total = reply.data.total ?? null;
      rows.push(...reply.data.list);
      onProgress({ done: rows.length, total, unit: 'rows' });
      if (reply.data.list.length < EXPORT_PAGE_SIZE || (total !== null && rows.length >= total)) break;
    }
    const header = columns.map((c) => c.title);
    const cells = rows.map((record) => columns.map((c) => c.value(record)));
    const blob = format === 'csv'
      ? new Blob([toCsv(header, cells)], { type: 'text/csv;charset=utf-8' })
      : new Blob([toXlsx(header, cells) as BlobPart], { type: XLSX_TYPE });
    saveFile(blob, `${fileName}.${format}`);
    return true;
  };
}

/** A progress as a percentage (null: not known yet). */
export function progressPercent(p: ExportProgress | null): number | null {
  if (!p || p.total === null || p.total <= 0) return null;
  return Math.min(100, Math.floor((p.done / p.total) * 100));
}
