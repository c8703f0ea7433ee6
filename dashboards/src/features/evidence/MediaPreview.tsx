import { Button, Modal, Space, Spin, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { download } from '../../api/client';
import { saveFile } from '../list/api';
import type { EvidenceFile } from './evidenceFile';
import { mediaUrl } from '../media/mediaPush';
import { useMediaBlob } from '../media/useMediaBlob';
import { VideoFile } from '../media/VideoFile';

/** The file's element: image, audio or video of an object URL fetched with the token (the file routes
 * need the Authorization header, which an element's src cannot send). */
export function EvidenceMedia({ file }: { file: EvidenceFile }) {
  const src = useMediaBlob(mediaUrl(file));
  if (!src) return <Spin data-testid="evidence-loading" />;
  if (file.mediaType === 1) return <audio src={src} controls data-testid="evidence-audio" style={{ width: '100%' }} />;
  if (file.mediaType === 2) return <VideoFile src={src} testId="evidence-video" style={{ width: '100%', maxHeight: 480 }} />;
  return <img src={src} alt={file.objectKey} data-testid="evidence-photo" style={{ maxWidth: '100%', maxHeight: 480, display: 'block', margin: '0 auto' }} />;
}

/** The preview dialog of one evidence file, with a download of the original. */
export default function MediaPreview({ file, onClose }: { file: EvidenceFile | null; onClose: () => void }) {
  const { t } = useTranslation('evidence');
  const save = async () => {
    if (!file) return;
    const found = await download(`/api/media/download/${encodeURIComponent(file.id)}.json`, file.objectKey.split('/').pop() ?? 'media');
    if (found) saveFile(found.blob, found.fileName);
  };
  return (
    <Modal open={file !== null} onCancel={onClose} footer={null} width={720} destroyOnHidden
      title={file ? t('preview.title', { plate: file.plateNumber || '-' }) : ''}>
      {file && (
        <Space direction="vertical" style={{ width: '100%' }} data-testid="evidence-preview">
          <EvidenceMedia file={file} />
          <Space>
            <Typography.Text type="secondary" copyable>{file.objectKey}</Typography.Text>
            <Button size="small" onClick={() => void save()} data-testid="evidence-download">{t('preview.download')}</Button>
          </Space>
        </Space>
      )}
    </Modal>
  );
}
