/** How old a fix is, as an i18n key under `detail:age.` and its count. Pure. */
export function ageOf(time: string | number | null | undefined, now: number): { key: string; count: number } | null {
  if (time === null || time === undefined || time === '') return null;
  const at = typeof time === 'number' ? time : Date.parse(time);
  if (!Number.isFinite(at)) return null;
  const seconds = Math.max(0, Math.floor((now - at) / 1000));
  if (seconds < 60) return { key: 'seconds', count: seconds };
  if (seconds < 3600) return { key: 'minutes', count: Math.floor(seconds / 60) };
  if (seconds < 86400) return { key: 'hours', count: Math.floor(seconds / 3600) };
  return { key: 'days', count: Math.floor(seconds / 86400) };
}

/** The history screens of one vehicle (the log routes of api/routemap.py), each with the carId query. */
export const HISTORY_LINKS = [
  ['replay', '/dashboard/trace'],
  ['gps', '/log/gps'],
  ['online', '/log/online'],
  ['accState', '/log/accState'],
  ['park', '/log/park'],
  ['idling', '/log/idling'],
] as const;

export function historyUrl(path: string, carId: number): string {
  return `${path}?carId=${carId}`;
}
