import { App } from 'antd';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { driverDetailHref } from '../driverDetail/model';
import { BIZ_ALARM, BIZ_APPROVAL, isAnnouncement, markNoticeRead, noticeChanges, type Notice } from './api';

/**
 * Opening a notice: an announcement shows its text and is then read (the bell's count drops); an alarm opens
 * its detail, an approval the licence applications, an expiry its vehicle or its driver's detail page.
 */
export function useOpenNotice(onRead?: () => void): (notice: Notice) => void {
  const { t } = useTranslation('alarm');
  const { modal } = App.useApp();
  const navigate = useNavigate();
  return useCallback((notice: Notice) => {
    if (isAnnouncement(notice)) {
      modal.info({
        title: notice.title,
        content: <div data-testid="announcement-text" style={{ whiteSpace: 'pre-wrap' }}>{notice.content}</div>,
        okText: t('notice.close'),
      });
      if (!notice.read) {
        void markNoticeRead(notice.id).then((reply) => {
          if (reply.code !== 0) return;
          noticeChanges.notify();
          onRead?.();
        });
      }
      return;
    }
    if (notice.bizType === BIZ_ALARM) navigate(`/list/alarmDetail?id=${encodeURIComponent(String(notice.bizId))}`);
    else if (notice.bizType === BIZ_APPROVAL) navigate('/settings/licenseApply');
    else if (notice.kind === 'licence') navigate(driverDetailHref(notice.bizId));  // bizId: the driver's id
    else if (notice.carId != null) navigate(`/list/carDetail?carId=${encodeURIComponent(String(notice.carId))}`);
  }, [modal, navigate, onRead, t]);
}
