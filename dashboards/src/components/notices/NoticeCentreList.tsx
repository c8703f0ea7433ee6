/** The notification centre's list (under the bell): every notice raised, newest first, with its time. */
import { Button, Empty } from 'antd';
import { useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { formatTime } from '../../features/map/popup/format';
import { noticeCentre, type NoticeCentre } from './noticeCentre';

const LEVEL_COLOURS = { info: '#1677ff', success: '#52c41a', warning: '#faad14', error: '#ff4d4f' } as const;

export function NoticeCentreList({ centre = noticeCentre }: { centre?: NoticeCentre }) {
  const { t } = useTranslation('layout');
  const notices = useSyncExternalStore(centre.subscribe, centre.getSnapshot);
  return (
    <div className="fw-notice-centre" data-testid="notice-centre" data-count={notices.length}>
      <div className="fw-notice-centre-head">
        <span>{t('notice.recent', { count: notices.length })}</span>
        {notices.length > 0 && (
          <Button size="small" type="link" onClick={() => centre.clear()} data-testid="notice-centre-clear">
            {t('notice.clear')}
          </Button>
        )}
      </div>
      {notices.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('notice.noRecent')} />
      ) : (
        <ul className="fw-notice-centre-list">
          {notices.map((notice) => (
            <li key={notice.id} data-testid="notice-centre-item" data-level={notice.level}>
              <span className="fw-notice-centre-dot" style={{ background: LEVEL_COLOURS[notice.level] }} />
              <div>
                <div className="fw-notice-centre-title">
                  {notice.title} <span className="fw-notice-centre-time">{formatTime(notice.at).slice(11)}</span>
                </div>
                <div className="fw-notice-centre-text">{notice.content}</div>
              </div>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
