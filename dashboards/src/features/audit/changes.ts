/** One field of an audit_log row's `changes` ({field: {before, after}}, api/query/records.py). */
export interface FieldChange {
  field: string;
  before: string;
  after: string;
}

export const EMPTY = '—';

/** A value as the audit screen shows it: text as is, null as a dash, anything else as JSON. */
export function shown(value: unknown): string {
  if (value === null || value === undefined) return EMPTY;
  if (typeof value === 'string') return value === '' ? '""' : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** The per-field changes of a row, in the order the server wrote them; anything unexpected
 * (a value that is not `{before, after}`) shows as the after value. */
export function fieldChanges(changes: unknown): FieldChange[] {
  if (!changes || typeof changes !== 'object' || Array.isArray(changes)) return [];
  return Object.entries(changes as Record<string, unknown>).map(([field, change]) => {
    if (change && typeof change === 'object' && !Array.isArray(change) && ('before' in change || 'after' in change)) {
      const { before, after } = change as { before?: unknown; after?: unknown };
      return { field, before: shown(before), after: shown(after) };
    }
    return { field, before: EMPTY, after: shown(change) };
  });
}
