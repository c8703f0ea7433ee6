/**
 * Terminal parameter values as the command API carries them (api/routes/commands.py): a hex id ("0055")
 * and a hex value of the standard's width ("0000003C" for a DWORD). Strings are GBK on the wire
 * (JT/T 808 §4.5); the browser decodes GBK natively and the encoder is built from that decoder once.
 */

export type ParamType = 'BYTE' | 'WORD' | 'DWORD' | 'STRING';

const WIDTH: Record<Exclude<ParamType, 'STRING'>, number> = { BYTE: 1, WORD: 2, DWORD: 4 };
export const TYPE_MAX: Record<Exclude<ParamType, 'STRING'>, number> = { BYTE: 0xff, WORD: 0xffff, DWORD: 0xffffffff };

/** "0055" for 0x55: four upper-case hex digits. */
export function paramIdHex(id: number): string {
  return id.toString(16).toUpperCase().padStart(4, '0');
}

/** An unsigned integer as hex of the type's width; throws RangeError outside 0..max or for a fraction. */
export function encodeNumber(value: number, type: Exclude<ParamType, 'STRING'>): string {
  if (!Number.isInteger(value) || value < 0 || value > TYPE_MAX[type]) {
    throw new RangeError(`${value} does not fit a ${type}`);
  }
  return value.toString(16).toUpperCase().padStart(WIDTH[type] * 2, '0');
}

/** The integer of a hex value (any width up to a DWORD); null for text that is not hex. */
export function decodeNumber(hex: string): number | null {
  if (!/^[0-9a-fA-F]{1,8}$/.test(hex)) return null;
  return parseInt(hex, 16);
}

let gbkTable: Map<string, number> | null = null;

/** The GBK code of every double-byte character, from the platform's own GBK decoder (built once). */
function gbkCodes(): Map<string, number> {
  if (gbkTable) return gbkTable;
  const table = new Map<string, number>();
  const decoder = new TextDecoder('gbk');
  const pair = new Uint8Array(2);
  for (let lead = 0x81; lead <= 0xfe; lead += 1) {
    for (let trail = 0x40; trail <= 0xfe; trail += 1) {
      if (trail === 0x7f) continue;
      pair[0] = lead;
      pair[1] = trail;
      const char = decoder.decode(pair);
      if (char.length === 1 && char !== '\ufffd' && !table.has(char)) table.set(char, (lead << 8) | trail);
    }
  }
  gbkTable = table;
  return table;
}

const hexByte = (byte: number) => byte.toString(16).toUpperCase().padStart(2, '0');

/** Text as GBK hex; throws RangeError naming the first character GBK cannot hold. */
export function encodeText(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x80) {
      out += hexByte(code);
      continue;
    }
    const gbk = gbkCodes().get(char);
    if (gbk === undefined) throw new RangeError(`"${char}" has no GBK code`);
    out += hexByte(gbk >> 8) + hexByte(gbk & 0xff);
  }
  return out;
}

/** GBK hex as text (trailing NULs dropped); null for text that is not whole bytes of hex. */
export function decodeText(hex: string): string | null {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return null;
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return new TextDecoder('gbk').decode(bytes).replace(/\0+$/, '');
}

/** The wire value of a typed value. */
export function encodeValue(value: number | string, type: ParamType): string {
  return type === 'STRING' ? encodeText(String(value)) : encodeNumber(Number(value), type);
}

/** The typed value of a wire value (null when the hex does not read as the type). */
export function decodeValue(hex: string, type: ParamType): number | string | null {
  return type === 'STRING' ? decodeText(hex) : decodeNumber(hex);
}
