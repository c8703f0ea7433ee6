import type { CatalogueEntry, Grant } from './api';

/** Console-spec §6's known actions, in the matrix's column order. */
export const KNOWN_ACTIONS = ['add', 'delete', 'update', 'query', 'get', 'enable', 'disable', 'import', 'export',
  'cmd', 'fence', 'more', 'superior', 'video'] as const;

export type Matrix = Record<string, string[]>;

export function toMatrix(grants: Grant[]): Matrix {
  return Object.fromEntries(grants.map((g) => [g.code, [...g.actions]]));
}

/** The role's permissions as the server takes them: codes with at least one action, actions sorted. */
export function toGrants(matrix: Matrix): Grant[] {
  return Object.entries(matrix)
    .filter(([, actions]) => actions.length > 0)
    .map(([code, actions]) => ({ code, actions: [...actions].sort() }))
    .sort((a, b) => a.code.localeCompare(b.code));
}

/** Whether the box is offered: the code has the action and the administrator holds it itself. */
export function grantable(entry: CatalogueEntry, action: string, held: Matrix): boolean {
  return entry.actions.includes(action) && (held[entry.code] ?? []).includes(action);
}
