import { Button, Popover, Space, Typography } from 'antd';
import dayjs from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAccess } from '../../auth/access';
import { fetchAuthorizeCodes, type AuthorizeCodes } from './api';

/** An inferior platform's time-limited authorisation codes (JT/T 1078-2016 §8.1, reported by 0x1701): when they
 * last arrived, and for the holders of inferiorPlatform:superior the codes themselves on demand (asked for when
 * opened, never in the list: they admit a pull of the platform's video). */
export default function AuthorizeCodesCell({ platformId, reportedAt }: { platformId: number; reportedAt: unknown }) {
  const { t } = useTranslation('inferior');
  const canSee = useAccess().can('inferiorPlatform', 'superior');
  const [codes, setCodes] = useState<AuthorizeCodes | null>(null);
  if (!reportedAt) return <Typography.Text type="secondary">{t('authorize.none')}</Typography.Text>;
  const load = (open: boolean) => {
    if (open) void fetchAuthorizeCodes(platformId).then((reply) => { if (reply.code === 0) setCodes(reply.data); });
  };
  const content = codes && (
    <Space orientation="vertical" size={4} data-testid={`authorize-codes-${platformId}`}>
      <span>{t('authorize.platformCode')}: <Typography.Text code>{codes.platformCode}</Typography.Text></span>
      <span>{t('authorize.code1')}: <Typography.Text code copyable data-testid="authorize-code-1">{codes.code1}</Typography.Text></span>
      <span>{t('authorize.code2')}: <Typography.Text code copyable>{codes.code2}</Typography.Text></span>
    </Space>
  );
  return (
    <Space size={4} data-testid={`authorize-${platformId}`}>
      <span>{dayjs(String(reportedAt)).format('YYYY-MM-DD HH:mm:ss')}</span>
      {canSee && (
        <Popover trigger="click" title={t('authorize.title')} content={content} onOpenChange={load}>
          <Button type="link" size="small" data-testid={`authorize-show-${platformId}`}>{t('authorize.show')}</Button>
        </Popover>
      )}
    </Space>
  );
}
