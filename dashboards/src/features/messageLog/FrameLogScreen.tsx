import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../list/ListPage';
import { defineListScreen, type ListRecord } from '../list/types';
import { initialFilters, READ_ONLY, useCarIdParam } from '../log/logScreens';
import { formatMsgId, hexPreview, isGbFrame } from './format';
import MessageDrawer from './MessageDrawer';

interface Props {
  entity: 'originalMessage' | 'upstreamMessage';
  /** Key prefix of the screen's strings in the messageLog namespace. */
  strings: 'original' | 'upstream';
}

/** A vehicle's stored frames in a time range (today by default), newest first; a row's "detail" opens
 * its decoded JSON and its bytes. `?carId=` preselects the vehicle. A GB terminal's frames are listed under their
 * protocol, each with its header command (0x02), as an 808 terminal's with its message id (0x0200). */
export default function FrameLogScreen({ entity, strings }: Props) {
  const carId = useCarIdParam();
  const { t } = useTranslation('messageLog');
  const [shown, setShown] = useState<ListRecord | null>(null);
  const withDirection = entity === 'originalMessage';
  const screen = useMemo(() => defineListScreen({
    entity,
    namespace: `messageLog:${strings}`,
    columns: ['time', 'plateNumber', 'phone', ...(withDirection ? ['direction'] : []), 'protocol',
      { field: 'msgId', render: (value, record) => formatMsgId(value, record.protocol) },
      // a GB frame has no serial (its stored seq is its collection time, which the row's key needs)
      { field: 'seq', render: (value, record) => (isGbFrame(record) ? '' : String(value ?? '')) },
      { field: 'rawHex', render: (value) => <code style={{ fontSize: 12 }}>{hexPreview(value)}</code> },
      // what the gateway answered a registration / authentication, and why (empty for other frames)
      'access'],
    filters: ['carId', 'time', ...(withDirection ? ['direction'] : []), 'protocol', 'msgId'],
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
