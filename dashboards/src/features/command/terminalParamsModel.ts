/**
 * The terminal-parameters screen's model: the read map (hex id -> hex value) as grouped rows with
 * decoded values, and the edited values back to the 8103 parameters that changed (and which of them
 * are guarded: the screen asks for a confirmation before sending those).
 */
import { PARAM_GROUPS, paramById, PARAMS, type ParamDef, type ParamGroup } from './paramCatalogue';
import { decodeValue, paramIdHex } from './paramValues';
import { checkParamValue } from './validation';

export interface ParamRow {
  hex: string;
  def: ParamDef | null;
  raw: string | null;
  /** Decoded with the parameter's type; the raw hex for ids the console does not know. */
  value: number | string | null;
}

export type RowGroup = { group: ParamGroup | 'other'; rows: ParamRow[] };

/** Every known parameter in its group (read or not), then the ids the terminal sent that the console does not know. */
export function groupedRows(values: Record<string, string>): RowGroup[] {
  const upper = Object.fromEntries(Object.entries(values).map(([k, v]) => [k.toUpperCase().padStart(4, '0'), v]));
  const groups: RowGroup[] = PARAM_GROUPS.map((group) => ({
    group,
    rows: PARAMS.filter((def) => def.group === group).map((def) => {
      const hex = paramIdHex(def.id);
      const raw = upper[hex] ?? null;
      return { hex, def, raw, value: raw === null ? null : decodeValue(raw, def.type) };
    }),
  }));
  const unknown = Object.keys(upper)
    .filter((hex) => !paramById.has(parseInt(hex, 16)))
    .sort()
    .map((hex) => ({ hex, def: null, raw: upper[hex], value: upper[hex] }));
  if (unknown.length) groups.push({ group: 'other', rows: unknown });
  return groups;
}

/** The form field of a parameter (antd names cannot start with a digit-only string safely). */
export const fieldName = (hex: string) => `p${hex}`;

export type ChangeResult = { ok: true; params: Map<number, number | string> } | { ok: false; hex: string; problem: string };

/**
 * The parameters to write: every filled-in field whose value differs from what was read, typed as the
 * API takes them (numbers as numbers, text as text). The first invalid value stops it (with its message key).
 */
export function changedParams(edited: Record<string, unknown>, current: Record<string, string>): ChangeResult {
  const params = new Map<number, number | string>();
  for (const def of PARAMS) {
    const hex = paramIdHex(def.id);
    const value = edited[fieldName(hex)];
    if (value === undefined || value === null || value === '') continue;
    const problem = checkParamValue(def, value);
    if (problem) return { ok: false, hex, problem };
    const typed = def.type === 'STRING' ? String(value) : Number(value);
    const was = current[hex];
    if (was !== undefined && decodeValue(was, def.type) === typed) continue;
    params.set(def.id, typed);
  }
  return { ok: true, params };
}

/** The guarded (link and identity) parameters among those to write, by id. */
export function guardedParams(params: Map<number, number | string>): number[] {
  return Array.from(params.keys()).filter((id) => paramById.get(id)?.guard);
}
