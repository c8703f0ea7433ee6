import { BellOutlined } from '@ant-design/icons';
import { Badge, Empty, List, Popover, Tabs } from 'antd';
import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { fetchNoticeOverview, type NoticeOverview } from '../auth/authApi';
import { isAnnouncement, noticeChanges, queryNotices, type Notice } from '../features/notices/api';
import { useOpenNotice } from '../features/notices/useOpenNotice';
import { afterFirstContent } from '../router/firstContent';
import { NOTIFY_LIST_PATH } from '../router/paths';
import { noticeCentre } from './notices/noticeCentre';
import { NoticeCentreList } from './notices/NoticeCentreList';

/** Console-spec §9: the overview is refreshed every 5 minutes. */
export const NOTICE_REFRESH_MS = 5 * 60 * 1000;
/** The message tab's newest notices; the rest are on /setting/notify/List. */
const MESSAGES_SHOWN = 5;

/**
 * The notice bell: the notification centre (every notice the console raised, newest first) and the
 * unread totals per business type (console-spec §9 bizType 1-6) on its first tab; the newest notices
 * themselves on its message tab (console-spec §2), each opening where it is handled.
 */
export default function NoticeBell() {
  const { t } = useTranslation('layout');
  const [overview, setOverview] = useState<NoticeOverview[]>([]);
  const [open, setOpen] = useState(false);
  const unread = useSyncExternalStore(noticeCentre.subscribe, () => noticeCentre.unreadCount());

  const [tab, setTab] = useState('overview');
  const [messages, setMessages] = useState<Notice[] | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    const load = () =>
      fetchNoticeOverview(controller.signal).then((reply) => {
        if (reply.code === 0 && Array.isArray(reply.data)) setOverview(reply.data);
      });
    // the unread totals wait for the opening page's first rows (router/firstContent.ts)
    const cancel = afterFirstContent(() => void load());
    const timer = window.setInterval(() => void load(), NOTICE_REFRESH_MS);
    // a notice read or decided anywhere recounts at once
    const unsubscribe = noticeChanges.subscribe(() => void load());
    return () => {
      cancel();
      unsubscribe();
      window.clearInterval(timer);
      controller.abort();
    };
  }, []);

  const loadMessages = useCallback(() => {
    void queryNotices(1, MESSAGES_SHOWN).then((page) => setMessages(page?.list ?? []));
  }, []);
  useEffect(() => {
    if (open && tab === 'messages') loadMessages();
  }, [open, tab, loadMessages]);
  const openNotice = useOpenNotice(loadMessages);

  const total = overview.reduce((sum, entry) => sum + (entry.total || 0), 0);
  const counts = (
    <>
      <NoticeCentreList />
      {overview.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('notice.empty')} />
      ) : (
        overview.map((entry) => (
          <div key={entry.bizType} className="notice-row" data-testid={`notice-${entry.bizType}`}>
            <span>{t(`notice.bizType.${entry.bizType}`, { defaultValue: t('notice.bizType.other') })}</span>
            <Badge count={entry.total} showZero color={entry.total ? undefined : '#d9d9d9'} />
          </div>
        ))
      )}
    </>
  );
  const messageList = (
    <List<Notice>
      size="small"
      data-testid="notice-messages"
      loading={messages === null}
      dataSource={messages ?? []}
      locale={{ emptyText: t('notice.empty') }}
      renderItem={(notice) => (
        <List.Item key={`${notice.bizType}-${notice.id}`} style={{ cursor: 'pointer' }} data-testid={`notice-message-${notice.bizType}-${notice.id}`}
          onClick={() => { setOpen(false); openNotice(notice); }}>
          <List.Item.Meta
            title={<span>{isAnnouncement(notice) && !notice.read ? <Badge status="processing" /> : null} {notice.title}</span>}
            description={<span style={{ display: 'block', overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
              {notice.content || t(`notice.bizType.${notice.bizType}`, { defaultValue: t('notice.bizType.other') })}</span>} />
        </List.Item>
      )}
    />
  );
  const content = (
    <div style={{ width: 320, maxWidth: 'calc(100vw - 32px)' }} data-testid="notice-list">
      <Tabs size="small" activeKey={tab} onChange={setTab} items={[
        { key: 'overview', label: <span data-testid="notice-tab-overview">{t('notice.tabs.overview')}</span>, children: counts },
        { key: 'messages', label: <span data-testid="notice-tab-messages">{t('notice.tabs.messages')}</span>, children: messageList },
      ]} />
      <div style={{ textAlign: 'center', paddingTop: 8 }}>
        <Link to={NOTIFY_LIST_PATH} onClick={() => setOpen(false)} data-testid="notice-more">
          {t('notice.viewAll')}
        </Link>
      </div>
    </div>
  );

  return (
    <Popover content={content} title={t('notice.title')} trigger="click" open={open} onOpenChange={(next) => {
        setOpen(next);
        if (next) noticeCentre.markRead();
        else setMessages(null);
      }} placement="bottomRight">
      <span className="header-action" data-testid="notice-bell" title={t('notice.title')}>
        <Badge count={total} size="small" offset={[2, -2]}>
          <BellOutlined style={{ fontSize: 16 }} />
        </Badge>
        {unread > 0 && <span className="fw-notice-unread" data-testid="notice-centre-unread" data-count={unread} title={t('notice.recent', { count: unread })} />}
      </span>
    </Popover>
  );
}
