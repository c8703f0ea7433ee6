import { useMemo } from 'react';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';
import { READ_ONLY } from '../../features/log/logScreens';

export const ENTITY = 'notifyMessage';

/** Data exchange "notifyMessage" (platform-spec §2): what a superior platform sent for people to read over
 * JT/T 809, newest first: messages between platforms (0x9302, acknowledged with 0x1302 on receipt) and warning
 * tips (0x9402) with the vehicle, the warning's source, alarm type and time. The same rows reach the notice
 * bell as 通知公告; this is their full record. */
export default function NotifyMessageScreen() {
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'exchange:notifyMessage',
    columns: ['receivedAt', 'platformName', 'dataType', 'plate', 'warnSrc', 'warnType', 'warnTime', 'content',
      'answeredAt'],
    filters: ['platformId', 'receivedAt', 'dataType', 'plate'],
    filterKinds: { platformId: { kind: 'ref', entity: 'superiorPlatform' } },
    features: READ_ONLY,
  }), []);
  return <ListPage screen={screen} />;
}
