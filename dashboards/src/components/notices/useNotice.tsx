/**
 * Raising a notice: it goes to the notification centre and shows as a toast at the bottom right
 * that closes itself (never a permanent one: the centre keeps it). At most MAX_TOASTS show at once
 * (AppProviders).
 */
import { App } from 'antd';
import { useCallback, type ReactNode } from 'react';
import { noticeCentre, TOAST_S, type NoticeLevel } from './noticeCentre';

export interface NoticeOptions {
  level: NoticeLevel;
  title: string;
  description: ReactNode;
  /** Replaces the toast and the centre entry with the same key (a newer state of the same thing). */
  key?: string;
  /** Seconds on screen; default TOAST_S of the level. */
  duration?: number;
  onClose?: () => void;
}

export function useNotice(): (notice: NoticeOptions) => void {
  const { notification } = App.useApp();
  return useCallback(
    ({ level, title, description, key, duration, onClose }: NoticeOptions) => {
      noticeCentre.add({ level, title, content: description }, key);
      notification[level]({
        key,
        title,
        description,
        duration: duration && duration > 0 ? duration : TOAST_S[level],
        placement: 'bottomRight',
        onClose,
      });
    },
    [notification],
  );
}
