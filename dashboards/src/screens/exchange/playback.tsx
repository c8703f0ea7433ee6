import { Tag } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';
import { READ_ONLY, todayRange } from '../../features/log/logScreens';

export const ENTITY = 'exchangePlayback';

// JT/T 1078 RESULT of the answer sent: 0 success, 1 failure, 2 not supported, 3-5 refusals.
const RESULT_COLOURS: Record<string, string> = { 0: 'green', 1: 'red', 2: 'orange', 3: 'default', 4: 'red', 5: 'red' };

/** Data exchange "playback" (platform-spec §2): the superior platforms' JT/T 1078 video requests over JT/T 809
 * (0x9801 real-time, 0x9802 stop, 0x9A01 remote playback with its time range, 0x9A02 control), with the vehicle,
 * channel and the result fleetwatch answered; today by default, newest first. */
export default function ExchangePlaybackScreen() {
  const { t } = useTranslation('exchange');
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'exchange:playback',
    columns: ['receivedAt', 'platformName', 'dataType', 'plate', 'channelId', 'avItemType', 'startAt', 'endAt',
      { field: 'result', render: (value) => (value === null || value === undefined ? ''
        : <Tag color={RESULT_COLOURS[String(value)]} data-testid="playback-result">{t(`playback.enums.result.${String(value)}`)}</Tag>) },
      'answeredAt'],
    filters: ['platformId', 'receivedAt', 'dataType', 'plate', 'result'],
    filterKinds: { platformId: { kind: 'ref', entity: 'superiorPlatform' } },
    initialFilters: { receivedAt: todayRange() },
    features: READ_ONLY,
  }), [t]);
  return <ListPage screen={screen} />;
}
