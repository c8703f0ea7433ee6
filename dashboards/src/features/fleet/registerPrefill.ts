import type { ListRecord } from '../list/types';

/** Protocol versions the device form offers (api/query/fleet_entities.py). */
const VERSIONS = new Set(['2011', '2013', '2019']);

/**
 * The one-click path from a refused unknown terminal (entity refusedRegistration) to the device form:
 * `/list/device?register=<phone>&terminalId=&protocolVersion=` opens the create drawer filled in. The
 * reported terminal id goes in as the serial and as the expected terminal id, so only that terminal may
 * register under the phone (gateway/README.md "Identity recorded in advance"); the administrator may change both.
 */
export function registerLink(record: ListRecord): string {
  const params = new URLSearchParams({ register: String(record.phone ?? '') });
  const terminalId = String(record.terminalId ?? '');
  if (terminalId) params.set('terminalId', terminalId);
  const version = String(record.protocolVersion ?? '');
  if (VERSIONS.has(version)) params.set('protocolVersion', version);
  return `/list/device?${params.toString()}`;
}

/** The device form's values from the link above, or undefined when the URL asks for no registration (or
 * names no phone of digits only). */
export function prefillFromSearch(search: URLSearchParams): ListRecord | undefined {
  const phone = search.get('register') ?? '';
  if (!/^\d{1,20}$/.test(phone)) return undefined;
  const values: ListRecord = { phone };
  const terminalId = (search.get('terminalId') ?? '').slice(0, 30);
  if (terminalId) {
    values.deviceSn = terminalId;
    values.expectedTerminalId = terminalId;
  }
  const version = search.get('protocolVersion') ?? '';
  if (VERSIONS.has(version)) values.protocolVersion = version;
  return values;
}
