import { useEffect, useState } from 'react';
import { download } from '../../api/client';

/**
 * An object URL of the file at `url`, fetched with the Authorization header (the file routes need it),
 * revoked when the URL changes or the caller unmounts. Null while loading, after a failure (already
 * shown by the client unless quiet) or without a URL.
 */
export function useMediaBlob(url: string | null, quiet = false): string | null {
  const [objectUrl, setObjectUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!url) return undefined;
    const controller = new AbortController();
    let created: string | null = null;
    void download(url, 'media', { signal: controller.signal, quiet }).then((file) => {
      if (!file || controller.signal.aborted) return;
      created = URL.createObjectURL(file.blob);
      setObjectUrl(created);
    });
    return () => {
      controller.abort();
      if (created) URL.revokeObjectURL(created);
      setObjectUrl(null);
    };
  }, [url, quiet]);
  return objectUrl;
}
