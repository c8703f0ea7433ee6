/** The data-exchange calls (api/routes/exchange.py; the inspections are the `inspectMessage` entity). */
import { http } from '../../api/client';
import type { ApiReply } from '../../api/types';
import type { ListPageReply } from '../list/types';

/** One link of a superior platform as the link service last saved it. */
export interface LinkState {
  platformId: number;
  link: 'main' | 'sub';
  state: string;
  since: string;
  lastHeartbeatAt: string | null;
  sentCount: number;
  receivedCount: number;
  backfilledCount: number;
  thinnedCount: number;
  mismatchCount: number;
  lastError: string | null;
  updatedAt: string;
}

export function fetchLinkStates(platformId: number, signal?: AbortSignal): Promise<ApiReply<LinkState[]>> {
  return http.get<LinkState[]>(`/api/exchange/superiorPlatform/${platformId}/linkState.json`, { signal, quiet: true });
}

/** Answers an open inspection; a failure (already answered, past its deadline) goes through the one handler. */
export function answerInspection(id: number, answer: string): Promise<ApiReply<{ id: number; state: string }>> {
  return http.post(`/api/exchange/inspection/${id}/answer.json`, { body: { answer } });
}

/** The open inspections (sign-in: those that arrived while nobody was signed in). */
export function fetchOpenInspections(signal?: AbortSignal): Promise<ApiReply<ListPageReply>> {
  return http.post<ListPageReply>('/api/common/query/inspectMessage.json', {
    params: { pageNo: 1, pageSize: 100, orderBy: 'receivedAt' },
    body: { 'state.eq': 'open' },
    signal,
    quiet: true,
  });
}
