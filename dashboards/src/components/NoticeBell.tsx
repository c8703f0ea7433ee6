import { BellOutlined } from '@ant-design/icons';
import { Badge, Empty, Popover } from 'antd';
import { useEffect, useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { fetchNoticeOverview, type NoticeOverview } from '../auth/authApi';
import { afterFirstContent } from '../router/firstContent';
import { NOTIFY_LIST_PATH } from '../router/paths';
import { noticeCentre } from './notices/noticeCentre';
import { NoticeCentreList } from './notices/NoticeCentreList';

/** Console-spec §9: the overview is refreshed every 5 minutes. */
export const NOTICE_REFRESH_MS = 5 * 60 * 1000;

/**
 * The notice bell: the notification centre (every notice the console raised, newest first) and the
 * unread totals per business type (console-spec §9 bizType 1-6).
 */
export default function NoticeBell() {
  const { t } = useTranslation('layout');
  const [overview, setOverview] = useState<NoticeOverview[]>([]);
  const [open, setOpen] = useState(false);
  const unread = useSyncExternalStore(noticeCentre.subscribe, () => noticeCentre.unreadCount());

  useEffect(() => {
    const controller = new AbortController();
    const load = () =>
      fetchNoticeOverview(controller.signal).then((reply) => {
        if (reply.code === 0 && Array.isArray(reply.data)) setOverview(reply.data);
      });
    // the unread totals wait for the opening page's first rows (router/firstContent.ts)
    const cancel = afterFirstContent(() => void load());
    const timer = window.setInterval(() => void load(), NOTICE_REFRESH_MS);
    return () => {
      cancel();
      window.clearInterval(timer);
      controller.abort();
    };
  }, []);

  const total = overview.reduce((sum, entry) => sum + (entry.total || 0), 0);
  const content = (
    <div style={{ width: 320, maxWidth: 'calc(100vw - 32px)' }} data-testid="notice-list">
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
