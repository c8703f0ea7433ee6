/** Pure rules of the driver detail page (platform-spec §2 detail pages: driver). */

export type Validity = 'expired' | 'expiresToday' | 'expiring' | 'valid' | 'unknown';

/**
 * A licence or certificate's standing from its days left (UTC+8, computed by the server): past its date
 * it is expired; within `noticeDays` (the window of the bell's licence notices, so the page warns exactly
 * when the bell does) it is expiring; no or an unreadable date: unknown (nothing to warn about).
 */
export function validity(daysLeft: number | null | undefined, noticeDays: number): Validity {
  if (daysLeft === null || daysLeft === undefined || !Number.isFinite(daysLeft)) return 'unknown';
  if (daysLeft < 0) return 'expired';
  if (daysLeft === 0) return 'expiresToday';
  return daysLeft <= noticeDays ? 'expiring' : 'valid';
}

/** The antd Tag colour of a standing: red past, orange inside the notice window. */
export function validityColor(standing: Validity): string | undefined {
  if (standing === 'expired') return 'red';
  if (standing === 'expiring' || standing === 'expiresToday') return 'orange';
  return standing === 'valid' ? 'green' : undefined;
}

/** The detail page of a driver (`/user/driver/detail?id=`), the driver list's row link. */
export function driverDetailHref(id: unknown): string {
  return `/user/driver/detail?id=${encodeURIComponent(String(id))}`;
}
