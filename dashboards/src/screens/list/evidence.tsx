import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { evidenceFile, type EvidenceFile } from '../../features/evidence/evidenceFile';
import MediaPreview from '../../features/evidence/MediaPreview';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

export const ENTITY = 'deviceUploadFile';

/** Evidence list (platform-spec §2 lists): the photos, audio and video clips terminals
 * uploaded (entity `deviceUploadFile`), newest first, the enterprise and its subsidiaries; each opens
 * a preview of the file fetched with the token. */
export default function EvidenceScreen() {
  const { t } = useTranslation('evidence');
  const [preview, setPreview] = useState<EvidenceFile | null>(null);
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'evidence',
    columns: [
      'time', 'plateNumber', 'deviceName', 'mediaType',
      { field: 'eventCode', render: (value) => t(`events.${String(value)}`, { defaultValue: t('events.other', { code: String(value) }) }) },
      'channel',
      { field: 'size', render: (value) => `${(Number(value) / 1024).toFixed(1)} KB` },
      'fixTime',
    ],
    filters: ['carId', 'time', 'mediaType', 'bizId'],
    features: { create: false, edit: false, delete: false, import: false },
    rowActions: [{ key: 'preview', action: 'get', label: t('preview.action'), onClick: (record) => setPreview(evidenceFile(record)) }],
  }), [t]);
  return (
    <>
      <ListPage screen={screen} />
      <MediaPreview file={preview} onClose={() => setPreview(null)} />
    </>
  );
}
