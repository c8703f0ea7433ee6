import { Card, Table, Typography } from 'antd';
import dayjs from 'dayjs';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { fetchUnknownLogins, type UnknownLogin, type UnknownLogins } from './api';

const REFRESH_MS = 15_000;
const time = (value: string) => dayjs(value).format('YYYY-MM-DD HH:mm:ss');

/** Platform-spec §2, the gb32960 exchange's inferiorPlatform: the platform logins 0x05 the GB gateways refused
 * because no platform has their username (someone probing, or a platform not configured yet), per username and
 * source address with their attempts, refreshed while shown; only for a root enterprise's administrators (no
 * enterprise owns them). */
export default function UnknownLoginsCard() {
  const { t } = useTranslation('nev');
  const [logins, setLogins] = useState<UnknownLogins | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    const load = () => void fetchUnknownLogins(controller.signal).then((reply) => {
      if (reply.code === 0 && reply.data) setLogins(reply.data);
    });
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => {
      clearInterval(timer);
      controller.abort();
    };
  }, []);
  if (!logins?.visible) return null;
  return (
    <Card size="small" title={t('inferiorPlatform.unknownLogins.title')} data-testid="gb32960-unknown-logins"
      style={{ marginBottom: 12 }}>
      <Typography.Paragraph type="secondary" style={{ marginBottom: 8 }}>{t('inferiorPlatform.unknownLogins.hint')}</Typography.Paragraph>
      <Table<UnknownLogin> size="small" pagination={{ pageSize: 5, hideOnSinglePage: true }} dataSource={logins.list}
        rowKey={(row) => `${row.username}@${row.address}`} locale={{ emptyText: t('inferiorPlatform.unknownLogins.none') }}
        columns={[
          { key: 'username', title: t('inferiorPlatform.unknownLogins.username'), dataIndex: 'username',
            render: (value: string) => <Typography.Text code data-testid="gb32960-unknown-login-user">{value}</Typography.Text> },
          { key: 'address', title: t('inferiorPlatform.unknownLogins.address'), dataIndex: 'address' },
          { key: 'attempts', title: t('inferiorPlatform.unknownLogins.attempts'), dataIndex: 'attempts' },
          { key: 'firstAt', title: t('inferiorPlatform.unknownLogins.firstAt'), render: (_v, row) => time(row.firstAt) },
          { key: 'lastAt', title: t('inferiorPlatform.unknownLogins.lastAt'), render: (_v, row) => time(row.lastAt) },
          { key: 'gatewayId', title: t('inferiorPlatform.unknownLogins.gateway'), dataIndex: 'gatewayId' },
        ]} />
    </Card>
  );
}
