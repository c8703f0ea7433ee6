/**
 * Stops what a video page plays once the page stayed off screen for the grace (hiddenStop.ts), and
 * says so when the user comes back: "the video was closed while the page was hidden, to save the
 * terminals' data plan".
 */
import { App } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { usePageShown } from '../../layouts/tabs/PageShown';
import { HiddenStop } from './hiddenStop';

export function useStopWhenHidden(running: boolean, graceMs: number, stop: () => void): void {
  const { t } = useTranslation('video');
  const { message } = App.useApp();
  const shown = usePageShown();
  const stoppedHidden = useRef(false);
  const stopRef = useRef(stop);
  useEffect(() => {
    stopRef.current = stop;
  });
  const guard = useRef<HiddenStop | null>(null);
  useEffect(() => {
    const made = new HiddenStop(() => {
      stopRef.current();
      stoppedHidden.current = true;
    });
    guard.current = made;
    return () => made.cancel();
  }, []);
  useEffect(() => {
    guard.current?.update(shown, running, graceMs);
  }, [shown, running, graceMs]);

  useEffect(() => {
    if (!shown || !stoppedHidden.current) return;
    stoppedHidden.current = false;
    void message.info({ content: <span data-testid="video-stopped-hidden">{t('hidden.stopped', { s: Math.round(graceMs / 1000) })}</span>, key: 'video-stopped-hidden', duration: 8 });
  }, [shown, graceMs, message, t]);
}
