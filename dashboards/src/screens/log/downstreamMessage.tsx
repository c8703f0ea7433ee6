import dayjs from 'dayjs';
import { useMemo } from 'react';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';
import { READ_ONLY, todayRange, useCarIdParam } from '../../features/log/logScreens';
import { formatMsgId } from '../../features/messageLog/format';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'downstreamMessage';

/** Downstream messages: the commands sent to terminals, who sent them and their outcome,
 * newest first; a vehicle or the whole enterprise, today by default; `?carId=` preselects the vehicle. */
export default function DownstreamMessageScreen() {
  const carId = useCarIdParam();
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'messageLog:downstream',
    columns: ['createTime', 'plateNumber', 'phone', { field: 'msgId', render: (value) => formatMsgId(value) },
      { field: 'payload', render: (value) => <code style={{ fontSize: 12 }}>{String(value ?? '')}</code> },
      'state', 'result', 'reason', 'createdByName',
      { field: 'answeredAt', render: (value) => (value ? dayjs(String(value)).format('YYYY-MM-DD HH:mm:ss') : '') }],
    filters: ['carId', 'createTime', 'msgId', 'state'],
    initialFilters: { ...(carId ? { carId } : {}), createTime: todayRange() },
    features: READ_ONLY,
  }), [carId]);
  return <ListPage key={carId ?? 'none'} screen={screen} />;
}
