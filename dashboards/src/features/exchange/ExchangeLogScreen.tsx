import { Descriptions, Drawer, Tag, Typography } from 'antd';
import dayjs from 'dayjs';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../list/ListPage';
import { defineListScreen, type ListRecord } from '../list/types';
import { READ_ONLY, todayRange } from '../log/logScreens';
import { formatMsgId, groupHexBytes, hexPreview, prettyJson } from '../messageLog/format';
import { useDictionary } from '../dictionary/dictionaryCache';
import { exchangeMessageLabel, exchangeMessageOptions, protocolOfPlatformKind } from './messageNames';

interface Props {
  entity: 'exchangeUpstreamMessage' | 'exchangeDownstreamMessage';
  /** Key prefix of the screen's strings in the exchange namespace. */
  strings: 'upstream' | 'downstream';
}

const pre = { fontFamily: 'monospace', fontSize: 12, whiteSpace: 'pre-wrap' as const, margin: 0 };

// a superior platform's links, a JT/T 809 inferior's, a GB/T 32960 inferior's (its login / logout, msgId the GB command)
const KIND_COLOURS: Record<string, string> = { superior: 'blue', inferior: 'purple', gb32960_inferior: 'cyan' };

/** One frame of the exchange log: platform, link, message (named from the exchange message descriptions in its
 * protocol), decoded and hex. */
function FrameDrawer({ record, onClose }: { record: ListRecord | null; onClose: () => void }) {
  const { t, i18n } = useTranslation('exchange');
  return (
    <Drawer open={record !== null} onClose={onClose} size={640} title={t('frame.title')} destroyOnHidden data-testid="exchange-frame-drawer">
      {record && (
        <>
          <Descriptions column={1} size="small" bordered items={[
            { key: 'time', label: t('frame.time'), children: dayjs(String(record.time)).format('YYYY-MM-DD HH:mm:ss.SSS') },
            { key: 'platform', label: t('frame.platform'), children: `${String(record.platformName ?? '')} (${t(`upstream.enums.platformKind.${String(record.platformKind)}`)})` },
            { key: 'link', label: t('frame.link'), children: t(`link.${String(record.link)}`) },
            { key: 'msgId', label: t('frame.msgId'), children: <span data-testid="exchange-frame-msg">{exchangeMessageLabel(record.msgId, i18n.language, undefined, protocolOfPlatformKind(record.platformKind))}</span> },
            { key: 'dataType', label: t('frame.dataType'), children: record.dataType === null || record.dataType === undefined ? '' : formatMsgId(record.dataType) },
          ]} />
          <Typography.Title level={5} style={{ marginTop: 16 }}>{t('frame.decoded')}</Typography.Title>
          <pre style={pre} data-testid="exchange-frame-decoded">{prettyJson(record.decoded)}</pre>
          <Typography.Title level={5} style={{ marginTop: 16 }}>{t('frame.hex')}</Typography.Title>
          <pre style={pre} data-testid="exchange-frame-hex">{record.rawHex ? groupHexBytes(record.rawHex) : t('frame.hidden')}</pre>
        </>
      )}
    </Drawer>
  );
}

/** The JT/T 809 frames of one direction (platform-spec §2 upstreamMessage / downstreamMessage of data exchange),
 * today by default, newest first, on the links of both kinds of platform (a superior's, where fleetwatch is the
 * inferior, and a JT/T 809 or GB/T 32960 inferior's, where it is the superior: the platform kind column; a GB one's
 * are its platform login / logout and their answers); filters by platform kind,
 * platform, time range, message id (named) and link. */
export default function ExchangeLogScreen({ entity, strings }: Props) {
  const { t, i18n } = useTranslation('exchange');
  const [shown, setShown] = useState<ListRecord | null>(null);
  const described = useDictionary('exchange_message_desc'); // the names arrive after sign-in
  const screen = useMemo(() => defineListScreen({
    entity,
    namespace: `exchange:${strings}`,
    columns: ['time', 'platformName',
      { field: 'platformKind', render: (value) => <Tag color={KIND_COLOURS[String(value)] ?? 'blue'} data-testid="exchange-platform-kind">{t(`${strings}.enums.platformKind.${String(value)}`)}</Tag> },
      'link',
      { field: 'msgId', render: (value, record) => exchangeMessageLabel(value, i18n.language, described, protocolOfPlatformKind(record.platformKind)) },
      { field: 'dataType', render: (value) => (value === null || value === undefined ? '' : formatMsgId(value)) },
      { field: 'rawHex', render: (value) => <code style={{ fontSize: 12 }}>{hexPreview(value)}</code> }],
    filters: ['platformKind', 'platformId', 'time', 'msgId', 'link'],
    filterKinds: {
      platformId: { kind: 'ref', entity: 'superiorPlatform' },
      msgId: { kind: 'choice', options: exchangeMessageOptions(i18n.language, described) },
    },
    initialFilters: { time: todayRange() },
    features: READ_ONLY,
    rowActions: [{ key: 'detail', label: t('frame.open'), onClick: (record) => setShown(record) }],
  }), [described, entity, i18n.language, strings, t]);
  return (
    <>
      <ListPage screen={screen} />
      <FrameDrawer record={shown} onClose={() => setShown(null)} />
    </>
  );
}
