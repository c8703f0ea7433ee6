import { http } from '../../api/client';
import type { ListPageReply, ListRecord } from '../list/types';

/** A node of `GET /api/aas/subsidiary.json`: the caller's enterprise tree (platform-spec §3, §7). */
export interface EnterpriseNode {
  id: number;
  shortName: string;
  type: number;
  state: number;
  children: EnterpriseNode[];
}

/** A screen a permission code opens: its menu title key; `action` set when only that action opens it. */
export interface OpenedScreen {
  title: string;
  action: string;
}

/**
 * One code of the permission catalogue (`GET /api/aas/permission.json`): the screens a grant of it
 * opens and the reads those screens bring with them (api/rights.py), which open no screen themselves.
 */
export interface CatalogueEntry {
  code: string;
  name: string;
  actions: string[];
  opens?: OpenedScreen[];
  implies?: Grant[];
}

export interface Grant {
  code: string;
  actions: string[];
}

export function fetchSubsidiaries(signal?: AbortSignal) {
  return http.get<EnterpriseNode[]>('/api/aas/subsidiary.json', { params: { select: 'id,shortName,type,state,children' }, signal });
}

export function fetchCatalogue(signal?: AbortSignal) {
  return http.get<CatalogueEntry[]>('/api/aas/permission.json', { signal });
}

/** `enable` / `disable` of an enterprise or a user (api/routes/org.py). */
export function setState(entity: 'enterprise' | 'user', id: unknown, action: 'enable' | 'disable') {
  return http.post<ListRecord>(`/api/common/${entity}/${String(id)}/${action}.json`);
}

export function fetchRecord<T = ListRecord>(entity: string, id: unknown, signal?: AbortSignal) {
  return http.get<T>(`/api/common/${entity}/${String(id)}.json`, { signal });
}

/** Quiet: the caller shows the server's message on the form field it names. */
export function patchRecord<T = ListRecord>(entity: string, id: unknown, body: Record<string, unknown>) {
  return http.patch<T>(`/api/common/${entity}/${String(id)}.json`, { body, quiet: true });
}

/** Every role the caller may see (its subtree), for the role picker. */
export function fetchRoles(signal?: AbortSignal) {
  return http.post<ListPageReply>('/api/common/query/role.json', {
    params: { select: 'id,name,enterpriseId', pageSize: 1000, countable: false },
    body: {},
    signal,
  });
}
