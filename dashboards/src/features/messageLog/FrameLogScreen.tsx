import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../list/ListPage';
import { defineListScreen, type ListRecord } from '../list/types';
import { initialFilters, READ_ONLY, useCarIdParam } from '../log/logScreens';
import { formatMsgId, hexPreview } from './format';
import MessageDrawer from './MessageDrawer';

interface Props {
  entity: 'originalMessage' | 'upstreamMessage';
  /** Key prefix of the screen's strings in the messageLog namespace. */
  strings: 'original' | 'upstream';
}

/** A vehicle's stored frames in a time range (today by default), newest first; a row's "detail" opens
 * its decoded JSON and its bytes. `?carId=` preselects the vehicle. */
export default function FrameLogScreen({ entity, strings }: Props) {
  const carId = useCarIdParam();
  const { t } = useTranslation('messageLog');
  const [shown, setShown] = useState<ListRecord | null>(null);
  const withDirection = entity === 'originalMessage';
  const screen = useMemo(() => defineListScreen({
    entity,
    namespace: `messageLog:${strings}`,
    columns: ['time', 'plateNumber', 'phone', ...(withDirection ? ['direction'] : []),
      { field: 'msgId', render: (value) => formatMsgId(value) }, 'seq',
      { field: 'rawHex', render: (value) => <code style={{ fontSize: 12 }}>{hexPreview(value)}</code> },
      // what the gateway answered a registration / authentication, and why (empty for other frames)
      'access'],
    filters: ['carId', 'time', ...(withDirection ? ['direction'] : []), 'msgId'],
    requiredFilters: ['carId', 'time'],
    initialFilters: initialFilters(carId, 'time'),
    features: READ_ONLY,
    rowActions: [{ key: 'detail', label: t('detail.open'), onClick: (record) => setShown(record) }],
  }), [carId, entity, strings, t, withDirection]);
  return (
    <>
      <ListPage key={carId ?? 'none'} screen={screen} />
      <MessageDrawer record={shown} onClose={() => setShown(null)} />
    </>
  );
}
