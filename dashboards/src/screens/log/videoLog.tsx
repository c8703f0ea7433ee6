import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'videoLog';

/**
 * The video log (platform-spec §2 logs): who watched, listened to, talked on or played
 * back which stream, from when to when, one row per viewer connection of the media server; read-only,
 * newest first, exportable. Entity `videoLog` (api/query/entities_video.py), strings `videoLog`.
 */
const screen = defineListScreen({
  entity: ENTITY,
  namespace: 'videoLog',
  columns: ['startTime', 'endTime', 'durationS', 'plateNumber', 'deviceSn', 'channel', 'kind', 'userName', 'transport', 'client', 'bytesSent', 'endReason'],
  filters: ['plateNumber', 'kind', 'userName', 'startTime'],
  features: { create: false, edit: false, delete: false, import: false },
});

export default function VideoLogScreen() {
  return <ListPage screen={screen} />;
}
