/** fleetwatch as the JT/T 809 superior platform: the calls of api/routes/exchange.py for inferior platforms
 * (the platforms, vehicles, positions and requests themselves are the entities inferiorPlatform, exchangeCar,
 * exchangeGps and inferiorRequest). */
import { http } from '../../api/client';
import type { ApiReply } from '../../api/types';
import type { ListPageReply } from '../list/types';

/** One link of an inferior platform as the superior service last saved it. */
export interface InferiorLinkState {
  platformId: number;
  link: 'main' | 'sub';
  state: string;
  since: string;
  peer: string | null;
  lastHeartbeatAt: string | null;
  sentCount: number;
  receivedCount: number;
  positionsCount: number;
  lastError: string | null;
  updatedAt: string;
}

/** The platform's latest time-limited authorisation codes (0x1701): all null before its first report. */
export interface AuthorizeCodes {
  platformCode: string | null;
  /** For its home region's superior. */
  code1: string | null;
  /** For a cross-region superior. */
  code2: string | null;
  reportedAt: string | null;
}

export function fetchAuthorizeCodes(platformId: number): Promise<ApiReply<AuthorizeCodes>> {
  return http.get<AuthorizeCodes>(`/api/exchange/inferiorPlatform/${platformId}/authorizeCodes.json`);
}

export type RequestKind = 'inspection' | 'message';
export const CONTENT_MAX = 1000;

export function fetchInferiorLinkStates(platformId: number, signal?: AbortSignal): Promise<ApiReply<InferiorLinkState[]>> {
  return http.get<InferiorLinkState[]>(`/api/exchange/inferiorPlatform/${platformId}/linkState.json`, { signal, quiet: true });
}

/** Queues an inspection (0x9301) or a message (0x9302); the superior service sends it while the platform is linked. */
export function sendRequest(platformId: number, kind: RequestKind, content: string, answerMinutes?: number
): Promise<ApiReply<{ id: number; state: string }>> {
  const body: Record<string, unknown> = { content };
  if (kind === 'inspection' && answerMinutes) body.answerMinutes = answerMinutes;
  return http.post(`/api/exchange/inferiorPlatform/${platformId}/${kind}.json`, { body });
}

/** The exchange vehicles with a last position, for the map (at most 1000, the entity's page size). */
export function fetchPositionedVehicles(signal?: AbortSignal): Promise<ApiReply<ListPageReply>> {
  return http.post<ListPageReply>('/api/common/query/exchangeCar.json', {
    params: { pageNo: 1, pageSize: 1000, orderBy: 'id' },
    body: { 'lastFixAt.exists': true },
    signal,
  });
}

/** An operator's live video (0x9801 / 0x1801 / 0x9802) or playback (0x9A01 / 0x1A01 / 0x9A02) request to an
 * inferior platform (api/routes/exchange.py). */
export interface VideoPull {
  id: number;
  vehicleId: number;
  plate: string;
  /** live (0x9801) or a recording (0x9A01, between startTime and endTime). */
  kind: VideoPullKind;
  channelId: number;
  avItemType: number;
  startTime: string | null;
  endTime: string | null;
  state: 'queued' | 'sent' | 'playing' | 'failed' | 'expired' | 'ended';
  /** The 0x1801 RESULT (0 success, 1 failure, 2 not supported, 3 session ended, 4 ...). */
  result: number | null;
  /** Why it failed or ended early (migration 0067): no_code, media_unavailable, address_refused, stopped,
   * platform_disabled. */
  error: string | null;
  /** The address the platform's answer named (SERVER_IP / SERVER_PORT). */
  serverIp: string | null;
  serverPort: number | null;
  streamId: string | null;
  deadline: string;
  /** While playing: the signed URLs of the stream our media server pulls. */
  flvUrl?: string;
  wsUrl?: string;
  urlExpiresAt?: number;
}

export type VideoPullKind = 'live' | 'playback';

export const VIDEO_PULL_FINAL: readonly VideoPull['state'][] = ['failed', 'expired', 'ended'];

export interface VideoPullAsk {
  kind: VideoPullKind;
  channelId: number;
  avItemType: number;
  /** A playback's period (ISO 8601). */
  startTime?: string;
  endTime?: string;
}

export function requestVideo(vehicleId: number, ask: VideoPullAsk): Promise<ApiReply<{ id: number; state: string }>> {
  return http.post(`/api/exchange/exchangeCar/${vehicleId}/video.json`, { body: { ...ask } });
}

export function fetchVideoPull(id: number, signal?: AbortSignal): Promise<ApiReply<VideoPull>> {
  return http.get<VideoPull>(`/api/exchange/videoPull/${id}.json`, { signal, quiet: true });
}

export function stopVideoPull(id: number): Promise<ApiReply<VideoPull>> {
  return http.post<VideoPull>(`/api/exchange/videoPull/${id}/stop.json`, { quiet: true });
}
