import { useMemo } from 'react';
import type { Permission } from './types';
import { useSession } from './useSession';

/** Known actions of console-spec §6. */
export const ACTIONS = [
  'add', 'delete', 'edit', 'query', 'get', 'enable', 'disable', 'import', 'export', 'cmd', 'fence', 'more', 'superior', 'video',
] as const;
export type Action = (typeof ACTIONS)[number];

/** Actions may arrive as a list or as text (console-spec §3: "stored as text and parsed"). */
export function actionsOf(permission: Permission | { code: string; actions: unknown }): string[] {
  const { actions } = permission;
  if (Array.isArray(actions)) return actions.map(String);
  if (typeof actions === 'string') {
    try {
      const parsed: unknown = JSON.parse(actions);
      if (Array.isArray(parsed)) return parsed.map(String);
    } catch {
      return actions.split(',').map((a) => a.trim()).filter(Boolean);
    }
  }
  return [];
}

/**
 * The console's action names and the server's (warehouse/seed.py PERMISSIONS) differ in one place:
 * the console says `edit` where the server grants `update`. Both names mean the same action.
 */
const SAME_ACTION: Record<string, string> = { edit: 'update', update: 'edit' };

export function can(permissions: Permission[] | undefined, code: string, action: string): boolean {
  const names = SAME_ACTION[action] ? [action, SAME_ACTION[action]] : [action];
  return !!permissions?.some((p) => p.code === code && actionsOf(p).some((held) => names.includes(held)));
}

export interface AccessApi {
  can: (code: string, action: string) => boolean;
}

export function useAccess(): AccessApi {
  const { user } = useSession();
  const permissions = user?.permissions;
  return useMemo(() => ({ can: (code: string, action: string) => can(permissions, code, action) }), [permissions]);
}
