import { Descriptions, Modal, Spin } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { LiveHub } from '../../live/LiveHub';
import { useLiveHub } from '../../live/useLiveHub';
import { switchOn } from '../alarm/notifyRules';
import { currentNotifySettings } from '../alarm/useNotifySettings';
import { COUNTDOWN_STEP_S, countdownShown, mediaUpload, mediaUrl, type MediaUpload } from './mediaPush';
import { useMediaBlob } from './useMediaBlob';
import { VideoFile } from './VideoFile';

/** The photo, audio or video element of an uploaded file (blob URL fetched with the token). */
export function MediaView({ file }: { file: Pick<MediaUpload, 'id' | 'objectKey' | 'fileStoreType' | 'kind'> }) {
  const src = useMediaBlob(mediaUrl(file));
  if (!src) return <Spin data-testid="media-loading" />;
  if (file.kind === 'audio') return <audio src={src} controls autoPlay data-testid="media-audio" style={{ width: '100%' }} />;
  if (file.kind === 'video') return <VideoFile src={src} autoPlay testId="media-video" style={{ width: '100%', maxHeight: 420 }} />;
  return <img src={src} alt={file.objectKey} data-testid="media-photo" style={{ maxWidth: '100%', maxHeight: 420, display: 'block', margin: '0 auto' }} />;
}

/** Counts down in 15 s steps and calls `onDone` at zero. */
function useCountdown(upload: MediaUpload | null, onDone: () => void): number {
  const [elapsed, setElapsed] = useState({ key: upload, steps: 0 });
  const steps = elapsed.key === upload ? elapsed.steps : 0;
  const shown = upload ? countdownShown(upload.kind, steps * COUNTDOWN_STEP_S) : 0;
  useEffect(() => {
    if (!upload) return undefined;
    const timer = setInterval(() => {
      setElapsed((current) => ({ key: upload, steps: (current.key === upload ? current.steps : 0) + 1 }));
    }, COUNTDOWN_STEP_S * 1000);
    return () => clearInterval(timer);
  }, [upload]);
  useEffect(() => {
    if (upload && shown === 0) onDone();
  }, [upload, shown, onDone]);
  return shown;
}

/**
 * The media-upload popup (console-spec §2, push 9): the newest upload of the enterprise, shown as
 * photo, audio or video, closing itself after 15 s / 300 s / 600 s by media type.
 */
export default function MediaUploadPopup() {
  return <MediaUploads hub={useLiveHub()} />;
}

/** The popup over a given hub (its pushes), for the layout and for tests. */
export function MediaUploads({ hub }: { hub: Pick<LiveHub, 'onPush'> | null }) {
  const { t } = useTranslation('media');
  const [upload, setUpload] = useState<MediaUpload | null>(null);
  useEffect(() => (hub ? hub.onPush((push) => {
    const next = mediaUpload(push);
    // The enterprise switch (console-spec §3 uploadFileWindowEnable) turns the popup off.
    if (next && switchOn(currentNotifySettings(), 'uploadFile')) setUpload(next);
  }) : undefined), [hub]);
  const close = useCallback(() => setUpload(null), []);
  const remaining = useCountdown(upload, close);

  return (
    <Modal
      open={upload !== null}
      title={upload ? t('popup.title', { vehicle: upload.plateNumber || upload.deviceName, kind: t(`kind.${upload.kind}`) }) : ''}
      footer={null}
      onCancel={close}
      width={640}
      destroyOnHidden
    >
      {upload && (
        <div data-testid="media-popup" data-kind={upload.kind} data-file-id={upload.id}>
          <MediaView file={upload} />
          <Descriptions size="small" column={2} style={{ marginTop: 12 }}>
            <Descriptions.Item label={t('popup.device')}>{upload.deviceName || '-'}</Descriptions.Item>
            <Descriptions.Item label={t('popup.event')}>
              {upload.bizType === null ? '-' : t(`event.${upload.bizType}`, { defaultValue: t('event.other', { code: upload.bizType }) })}
            </Descriptions.Item>
          </Descriptions>
          <div className="fw-popup-muted" data-testid="media-countdown" data-seconds={remaining}>
            {t('popup.countdown', { seconds: remaining })}
          </div>
        </div>
      )}
    </Modal>
  );
}
