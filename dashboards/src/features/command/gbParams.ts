/**
 * GB/T 32960.3-2016 table 24 as the console's parameter panel needs it (the server's api/gb_commands.py is
 * the authority and refuses anything else): the ids an operator may set, each value's form and range. The
 * domain lengths 04 / 0D are written by the server from the domain's text; the versions 07 / 08 are read only.
 */
export interface GbParam {
  id: string; // two hex digits, as the API takes it
  text: boolean; // a domain (ASCII text, 1-255 characters)
  max: number; // the largest number of its width (text: the longest text)
}

export const GB_SETTABLE: readonly GbParam[] = [
  { id: '01', text: false, max: 0xffff },
  { id: '02', text: false, max: 0xffff },
  { id: '03', text: false, max: 0xffff },
  { id: '05', text: true, max: 255 },
  { id: '06', text: false, max: 0xffff },
  { id: '09', text: false, max: 0xff },
  { id: '0A', text: false, max: 0xffff },
  { id: '0B', text: false, max: 0xffff },
  { id: '0C', text: false, max: 0xff },
  { id: '0E', text: true, max: 255 },
  { id: '0F', text: false, max: 0xffff },
  { id: '10', text: false, max: 0xff },
];

/** Ids whose change can move the terminal to another platform: the server asks for a confirmation. */
export const GB_LINK_IDS: readonly string[] = ['05', '06', '0E', '0F'];

/** The value to send for `id` typed as `raw`, or null when it is not one the standard allows. */
export function gbParamValue(id: string, raw: string): number | string | null {
  const param = GB_SETTABLE.find((p) => p.id === id);
  if (!param) return null;
  const trimmed = raw.trim();
  if (param.text) {
    return trimmed.length >= 1 && trimmed.length <= param.max && /^[\x20-\x7e]+$/.test(trimmed) ? trimmed : null;
  }
  if (!/^\d+$/.test(trimmed)) return null;
  const value = Number(trimmed);
  return value <= param.max ? value : null;
}

/** One item of a parameter query's answer, as state.json's `reply.params` carries it. */
export interface GbAnsweredParam {
  id: string;
  name: string;
  value: number | string;
}

/** The answered items of a 0x80 reply (`{response, params}`), or [] for anything else. */
export function answeredParams(reply: unknown): GbAnsweredParam[] {
  if (!reply || typeof reply !== 'object') return [];
  const params = (reply as { params?: unknown }).params;
  if (!Array.isArray(params)) return [];
  return params.filter(
    (p): p is GbAnsweredParam =>
      !!p && typeof p === 'object' && typeof (p as GbAnsweredParam).id === 'string'
      && (typeof (p as GbAnsweredParam).value === 'number' || typeof (p as GbAnsweredParam).value === 'string'),
  );
}
