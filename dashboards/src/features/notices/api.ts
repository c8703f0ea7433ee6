/** The bell's notices (api/notices.py): the list, an announcement's read mark and a licence application's
 * decision. */
import { http } from '../../api/client';
import type { ApiReply } from '../../api/types';

/** Console-spec §9 bizType: 1 approvals, 2 insurance, 3 inspection, 4 driving licence, 5 announcements, 6 alarms. */
export const BIZ_APPROVAL = 1;
export const BIZ_ANNOUNCEMENT = 5;
export const BIZ_ALARM = 6;
export const BIZ_TYPES = [1, 2, 3, 4, 5, 6] as const;

export interface Notice {
  id: number;
  bizType: number;
  bizId: number;
  title: string;
  content: string | null;
  /** `announcement` for an administrator's announcement (bizType 5), `insurance` / `inspection` / `licence`
   * for an expiry, `licenceApply`, `message` / `warning` from a superior platform; null for an alarm. */
  kind: string | null;
  read: number | null;
  daysLeft: number | null;
  carId: number | null;
  createTime: string | number | null;
}

export interface NoticePage {
  list: Notice[];
  total?: number;
}

/** One page of the caller's open notices, newest first; `bizType` narrows it to one kind. */
export async function queryNotices(pageNo: number, pageSize: number, bizType?: number,
  signal?: AbortSignal): Promise<NoticePage | null> {
  const reply = await http.post<NoticePage | null>('/api/query/notice.json', {
    params: { countable: true, pageNo, pageSize, orderBy: 'createTime', desc: true },
    body: bizType ? { 'bizType.eq': bizType } : {},
    signal,
  });
  return reply.code === 0 ? (reply.data ?? { list: [] }) : null;
}

export function isAnnouncement(notice: Notice): boolean {
  return notice.bizType === BIZ_ANNOUNCEMENT && notice.kind === 'announcement';
}

/** Marks an announcement read by the caller (the bell's count drops). */
export function markNoticeRead(id: number): Promise<ApiReply<{ id: number; read: number }>> {
  return http.post<{ id: number; read: number }>(`/api/notice/${id}/read.json`, { body: {} });
}

/** Approves (1) or rejects (2) a pending licence application. */
export function decideApplication(id: unknown, state: 1 | 2, opinion?: string): Promise<ApiReply<unknown>> {
  return http.post<unknown>(`/api/license/apply/${String(id)}/approve.json`, { body: { state, opinion: opinion || null } });
}

/** Listeners told when a notice was read or decided, so the bell recounts at once. */
const listeners = new Set<() => void>();
export const noticeChanges = {
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  notify(): void {
    listeners.forEach((listener) => listener());
  },
};
