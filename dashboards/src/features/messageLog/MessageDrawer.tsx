import { Descriptions, Drawer, Typography } from 'antd';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import type { ListRecord } from '../list/types';
import { formatMsgId, groupHexBytes, prettyJson } from './format';

interface Props {
  record: ListRecord | null;
  onClose: () => void;
}

const pre = { fontFamily: 'monospace', fontSize: 12, whiteSpace: 'pre-wrap' as const, margin: 0 };

/** One stored frame: who, when, which message, its decoded JSON and its bytes. */
export default function MessageDrawer({ record, onClose }: Props) {
  const { t } = useTranslation('messageLog');
  const direction = record?.direction;
  return (
    <Drawer open={record !== null} onClose={onClose} size={640} title={t('detail.title')} destroyOnHidden
      data-testid="message-drawer">
      {record && (
        <>
          <Descriptions column={1} size="small" bordered items={[
            { key: 'time', label: t('fields.time'), children: dayjs(String(record.time)).format('YYYY-MM-DD HH:mm:ss.SSS') },
            { key: 'plate', label: t('fields.plateNumber'), children: String(record.plateNumber ?? '') },
            { key: 'phone', label: t('fields.phone'), children: String(record.phone ?? '') },
            ...(direction === undefined ? [] : [{ key: 'direction', label: t('fields.direction'), children: t(`enums.direction.${String(direction)}`) }]),
            { key: 'msgId', label: t('fields.msgId'), children: <span data-testid="message-msg-id">{formatMsgId(record.msgId, record.protocol)}</span> },
            { key: 'seq', label: t('fields.seq'), children: String(record.seq ?? '') },
          ]} />
          <Typography.Title level={5} style={{ marginTop: 16 }}>{t('detail.decoded')}</Typography.Title>
          <pre style={pre} data-testid="message-decoded">{prettyJson(record.decoded)}</pre>
          <Typography.Title level={5} style={{ marginTop: 16 }}>
            {t('detail.hex')}{record.rawTruncated ? ` (${t('detail.truncated')})` : ''}
          </Typography.Title>
          <pre style={pre} data-testid="message-hex">{groupHexBytes(record.rawHex)}</pre>
        </>
      )}
    </Drawer>
  );
}
