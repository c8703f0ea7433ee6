import dayjs from 'dayjs';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDuration, READ_ONLY, useCarIdParam } from '../../features/log/logScreens';
import { formatBytes, liveDetailHref } from '../../features/liveLog/format';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'liveLog';

/**
 * The live log (platform-spec §2 logs: live, with detail): one row per live video, listening or talk
 * session: who opened which vehicle's channel, when, the first frame, how long, the terminal's data and
 * why it ended; newest first, a vehicle and a time range (the last 7 days by default), exported as shown.
 * Entity `liveLog` (api/query/entities_video.py), strings `liveLog`; the row's detail is `/log/liveDetail`.
 */
export default function LiveLogScreen() {
  const { t } = useTranslation(['liveLog', 'log']);
  const carId = useCarIdParam();
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'liveLog',
    columns: ['requestTime', 'plateNumber', 'channel', 'kind', 'userName', 'firstFrameTime', 'endTime',
      { field: 'durationS', render: (value) => (value === null || value === undefined ? '' : formatDuration(value, t)) },
      { field: 'bytesIn', render: formatBytes }, 'viewers', 'endReason'],
    filters: ['carId', 'requestTime', 'kind', 'endReason'],
    initialFilters: { ...(carId ? { carId } : {}), requestTime: [dayjs().subtract(6, 'day').startOf('day'), dayjs().endOf('day')] },
    features: READ_ONLY,
    detail: (record) => liveDetailHref(record.id),
    exportAsShown: true,
    exportName: 'liveLog',
  }), [carId, t]);
  return <ListPage key={carId ?? 'none'} screen={screen} />;
}
