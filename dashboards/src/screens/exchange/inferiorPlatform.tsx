import { Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { RequestKind } from '../../features/exchangeInferior/api';
import AuthorizeCodesCell from '../../features/exchangeInferior/AuthorizeCodesCell';
import InferiorLinkStates from '../../features/exchangeInferior/InferiorLinkStates';
import SendRequestDialog from '../../features/exchangeInferior/SendRequestDialog';
import ListPage from '../../features/list/ListPage';
import { defineListScreen, type ListRecord } from '../../features/list/types';

export const ENTITY = 'inferiorPlatform';

// An unanswered request past its deadline is expired (migration 0050): red, like an expired inspection.
const REQUEST_STATE_COLOURS: Record<string, string> = { queued: 'default', sent: 'green', answered: 'blue', failed: 'red', expired: 'red' };

/** Data exchange "inferiorPlatform" (platform-spec §2): the inferior platforms allowed to log in to fleetwatch as
 * their JT/T 809 superior, each with its links' state and the time-limited authorisation codes it last reported
 * (0x1701; the codes on demand); the password is write-only. Holders of
 * inferiorPlatform:superior send a platform an inspection (查岗) or a message; the list below shows what was sent,
 * its answer and how long the answer took. */
export default function InferiorPlatformScreen() {
  const { t } = useTranslation('inferior');
  const [sending, setSending] = useState<{ platform: { id: number; name: string }; kind: RequestKind } | null>(null);
  const [sent, setSent] = useState(0);
  const open = (kind: RequestKind) => (record: ListRecord) =>
    setSending({ platform: { id: Number(record.id), name: String(record.name) }, kind });
  const platforms = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'inferior:platform',
    columns: ['name', 'userId', 'centreId', 'version',
      { field: 'enabled', render: (value) => (value ? <Tag color="green">{t('platform.enabled.true')}</Tag> : <Tag>{t('platform.enabled.false')}</Tag>) },
      { key: 'links', title: t('platform.links'), render: (_value, record) => <InferiorLinkStates platformId={Number(record.id)} /> },
      { key: 'authorize', title: t('authorize.column'), render: (_value, record) => (
        <AuthorizeCodesCell platformId={Number(record.id)} reportedAt={record.authorizeReportedAt} />) }],
    filters: ['name', 'userId', 'version', 'enabled'],
    form: ['name', 'userId', 'password', 'centreId', 'version', 'encrypted', 'm1', 'ia1', 'ic1', 'encryptKey',
      'allowedHosts', 'videoHosts', 'enabled', 'remark'],
    features: { import: false },
    rowActions: [
      { key: 'inspection', action: 'superior', label: t('send.inspection'), onClick: open('inspection') },
      { key: 'message', action: 'superior', label: t('send.message'), onClick: open('message') },
    ],
  }), [t]);
  const requests = useMemo(() => defineListScreen({
    entity: 'inferiorRequest',
    namespace: 'inferior:request',
    columns: ['platformName', 'kind', 'content',
      { field: 'state', render: (value) => <Tag color={REQUEST_STATE_COLOURS[String(value)]} data-testid="inferior-request-state">{t(`request.enums.state.${String(value)}`)}</Tag> },
      'createdAt', 'sentAt', 'deadline', 'answer', 'answeredAt', 'latencyMs'],
    filters: ['kind', 'state'],
    features: { create: false, edit: false, delete: false, import: false, export: true },
  }), [t]);
  return (
    <>
      <ListPage screen={platforms} />
      <h3 style={{ marginTop: 24 }}>{t('request.title')}</h3>
      <ListPage key={sent} screen={requests} />
      <SendRequestDialog platform={sending?.platform ?? null} kind={sending?.kind ?? 'inspection'}
        onClose={() => setSending(null)} onSent={() => { setSending(null); setSent((n) => n + 1); }} />
    </>
  );
}
