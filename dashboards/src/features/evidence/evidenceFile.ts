import type { ListRecord } from '../list/types';

/** What the preview needs of a `deviceUploadFile` row. */
export interface EvidenceFile {
  id: string;
  objectKey: string;
  fileStoreType: number;
  mediaType: number;
  plateNumber: string;
}

export function evidenceFile(record: ListRecord): EvidenceFile {
  return {
    id: String(record.id),
    objectKey: String(record.objectKey ?? ''),
    fileStoreType: Number(record.fileStoreType ?? 1),
    mediaType: Number(record.mediaType ?? 0),
    plateNumber: String(record.plateNumber ?? ''),
  };
}
