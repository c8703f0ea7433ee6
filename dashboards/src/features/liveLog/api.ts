/** The live log detail page's one read (`GET /api/log/live/{id}.json`, api/routes/live_log.py). */
import { http } from '../../api/client';
import type { ApiReply } from '../../api/types';

export type LiveEndReason = 'user' | 'idle' | 'terminal_left' | 'never_connected' | 'replaced' | 'server_stopping';

export interface LiveSession {
  id: number;
  sessionKey: string;
  plateNumber: string | null;
  deviceSn: string | null;
  userName: string | null;
  streamId: string;
  kind: 'live' | 'listen' | 'talk';
  channel: number;
  streamType: number | null;
  requestTime: string;
  firstFrameTime: string | null;
  endTime: string | null;
  durationS: number | null;
  bytesIn: number;
  bytesSent: number;
  frames: number;
  heartbeats: number;
  lastHeartbeatTime: string | null;
  peakViewers: number;
  viewers: number;
  endReason: LiveEndReason | null;
}

export interface LiveTimelineEvent {
  time: string;
  event: 'requested' | 'command' | 'answered' | 'firstFrame' | 'viewerJoined' | 'viewerLeft' | 'lastHeartbeat' | 'ended';
  detail: Record<string, unknown>;
}

export interface LiveViewer {
  id: number;
  userName: string | null;
  transport: string | null;
  client: string | null;
  startTime: string;
  endTime: string | null;
  durationS: number | null;
  bytesSent: number;
  endReason: string | null;
}

export interface LiveSessionDetail {
  session: LiveSession;
  viewers: LiveViewer[];
  timeline: LiveTimelineEvent[];
}

export function fetchLiveSession(id: string, signal?: AbortSignal): Promise<ApiReply<LiveSessionDetail>> {
  return http.get<LiveSessionDetail>(`/api/log/live/${encodeURIComponent(id)}.json`, { signal, quiet: true });
}
