/** A frame's id as its protocol writes it: a JT/T 808 message id 512 -> "0x0200" (the default), a GB/T 32960 /
 * GB 17691 header command 2 -> "0x02". */
export function formatMsgId(value: unknown, protocol: unknown = 'jt808'): string {
  if (value === null || value === undefined || value === '') return '';
  const id = Number(value);
  if (!Number.isInteger(id) || id < 0) return String(value);
  const digits = protocol === undefined || protocol === null || protocol === 'jt808' ? 4 : 2;
  return `0x${id.toString(16).toUpperCase().padStart(digits, '0')}`;
}

/** A message log row of a GB/T 32960 / GB 17691 terminal (its protocol not JT/T 808; migration 0071). */
export function isGbFrame(record: { protocol?: unknown }): boolean {
  return typeof record.protocol === 'string' && record.protocol !== 'jt808';
}

/** Hex text grouped in bytes ("7E 02 00 ..."), `perLine` bytes a line. Odd or non-hex text is shown as is. */
export function groupHexBytes(hex: unknown, perLine = 16): string {
  const text = typeof hex === 'string' ? hex.replace(/\s+/g, '') : '';
  if (!text || text.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(text)) return typeof hex === 'string' ? hex : '';
  const bytes = text.toUpperCase().match(/../g) ?? [];
  const lines: string[] = [];
  for (let i = 0; i < bytes.length; i += perLine) lines.push(bytes.slice(i, i + perLine).join(' '));
  return lines.join('\n');
}

/** The first `bytes` bytes of a frame, grouped, with an ellipsis when longer (the table column). */
export function hexPreview(hex: unknown, bytes = 12): string {
  const text = typeof hex === 'string' ? hex : '';
  const shown = groupHexBytes(text.slice(0, bytes * 2), bytes);
  return text.length > bytes * 2 ? `${shown} …` : shown;
}

/** Stored JSON text pretty-printed (2 spaces); text that is not JSON is shown as is. */
export function prettyJson(text: unknown): string {
  if (text === null || text === undefined || text === '') return '';
  if (typeof text !== 'string') return JSON.stringify(text, null, 2);
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
