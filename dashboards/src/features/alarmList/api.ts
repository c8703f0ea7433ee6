/** Calls of the alarm detail screens not in features/alarm/api.ts (contract G), through the one client. */
import { http } from '../../api/client';
import type { ListPageReply } from '../list/types';

/** The alarm's confirm records (entity alarmConfirmRecord, `alarmId.eq`), newest first. */
export function fetchConfirmRecords(alarmId: string, signal?: AbortSignal) {
  return http.post<ListPageReply>('/api/common/query/alarmConfirmRecord.json', {
    params: { pageNo: 1, pageSize: 100, orderBy: 'confirmTime', desc: true },
    body: { 'alarmId.eq': Number(alarmId) },
    signal,
    quiet: true,
  });
}
