/** How the live log shows its numbers: bytes in KB / MB / GB (1024-based, what a data plan counts). Pure. */
export function formatBytes(value: unknown): string {
  if (value === null || value === undefined || value === '') return '';
  const bytes = Number(value);
  if (!Number.isFinite(bytes) || bytes < 0) return '';
  const units = ['B', 'KB', 'MB', 'GB'];
  let shown = bytes;
  let unit = 0;
  while (shown >= 1024 && unit < units.length - 1) {
    shown /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} B` : `${shown.toFixed(shown >= 100 ? 0 : 1)} ${units[unit]}`;
}

export function liveDetailHref(id: unknown): string {
  return `/log/liveDetail?id=${encodeURIComponent(String(id))}`;
}
