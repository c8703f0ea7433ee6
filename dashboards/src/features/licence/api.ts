/** Licence calls (api/routes/settings.py): detail, install, and the sign-in-free application. */
import { http } from '../../api/client';
import type { ApiReply } from '../../api/types';

export interface LicenceTerms {
  id: string;
  licensee: string;
  enterprise: string;
  maxVehicles: number;
  validFrom: string;
  validTo: string;
  features: string[];
  installedBy: string;
  installedAt: string;
}

export interface LicenceStatus {
  community: boolean;
  machineCode: string;
  licence: LicenceTerms | null;
  vehiclesUsed: number;
  vehiclesAllowed: number | null;
  daysLeft: number | null;
  expired: boolean;
  /** Ends within warningDays (the platform parameter licenceWarningDays) and has not ended yet. */
  expiring: boolean;
  warningDays: number;
}

export interface LicenceApplication {
  company: string;
  contact: string;
  phone: string;
  email: string;
  vehicles: number;
}

export function fetchLicenceStatus(signal?: AbortSignal): Promise<ApiReply<LicenceStatus | null>> {
  return http.get<LicenceStatus | null>('/api/license/detail.json', { signal });
}

/** A refused licence (bad signature, expired, ...) answers its reason; the client has shown it. */
export function installLicence(text: string): Promise<ApiReply<LicenceStatus | null>> {
  return http.post<LicenceStatus | null>('/api/license/install.json', { body: { licence: text } });
}

export async function fetchMachineCode(signal?: AbortSignal): Promise<string> {
  const reply = await http.get<{ machineCode: string } | null>('/api/license/machineCode.json', { signal, quiet: true });
  return reply.code === 0 && reply.data ? reply.data.machineCode : '';
}

export function applyForLicence(application: LicenceApplication): Promise<ApiReply<{ id: number; machineCode: string } | null>> {
  return http.post<{ id: number; machineCode: string } | null>('/api/license/apply.json', { body: application });
}
