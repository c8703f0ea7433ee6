import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { LiveHub } from '../../live/LiveHub';
import { fetchLatestPhoto, type PhotoRow } from './api';
import { mediaUpload, mediaUrl } from './mediaPush';
import { useMediaBlob } from './useMediaBlob';

/**
 * The latest photo in the vehicle popup: read when the popup opens and again when a push 9 brings a
 * new photo of this device.
 */
export function LatestPhoto({ hub, deviceId, onLoad }: { hub: LiveHub; deviceId: number; onLoad?: () => void }) {
  const { t } = useTranslation('map');
  const [photo, setPhoto] = useState<PhotoRow | null>(null);
  const [version, setVersion] = useState(0);
  useEffect(
    () =>
      hub.onPush((push) => {
        const upload = mediaUpload(push);
        if (upload && upload.kind === 'photo' && upload.deviceId === deviceId) setVersion((v) => v + 1);
      }),
    [hub, deviceId],
  );
  useEffect(() => {
    const controller = new AbortController();
    void fetchLatestPhoto(deviceId, controller.signal).then((row) => {
      if (!controller.signal.aborted) setPhoto(row);
    });
    return () => controller.abort();
  }, [deviceId, version]);
  const src = useMediaBlob(photo ? mediaUrl({ id: String(photo.id), objectKey: photo.objectKey, fileStoreType: photo.fileStoreType ?? 1 }) : null, true);
  if (!photo || !src) return <span className="fw-popup-muted">{t('popup.noPhoto')}</span>;
  return <img src={src} alt={photo.objectKey} data-testid="popup-latest-photo" data-file-id={String(photo.id)} onLoad={onLoad} style={{ maxWidth: 200, maxHeight: 150, display: 'block' }} />;
}
