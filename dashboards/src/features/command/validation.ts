/**
 * The dialogs' checks, the server's checks repeated so the operator hears about a mistake before
 * sending (the server checks again and answers a 400 naming the field). Each returns the key of the
 * `command` namespace message, or null when the value is fine.
 */
import type { AlarmField, ParamDef } from './paramCatalogue';
import { encodeText } from './paramValues';

export const TEXT_MAX = 150;
/** The TTS dialog's hint (console-spec §5: "the broadcast hint says 20"); the limit is still 150. */
export const TTS_HINT_MAX = 20;

export function checkContent(content: unknown): 'text.required' | 'text.tooLong' | 'text.notGbk' | null {
  const text = typeof content === 'string' ? content : '';
  if (!text.trim()) return 'text.required';
  if (Array.from(text).length > TEXT_MAX) return 'text.tooLong';
  try {
    encodeText(text);
  } catch {
    return 'text.notGbk'; // the terminal's display and TTS read GBK
  }
  return null;
}

const isBlank = (value: unknown) => value === undefined || value === null || value === '';

/** An alarm-configuration field: required (the spec's message per field), a whole number in range. */
export function checkAlarmField(field: AlarmField, value: unknown): string | null {
  if (isBlank(value)) return `alarm.required.${field.name}`;
  const n = Number(value);
  if (!Number.isInteger(n) || n < field.min || n > field.max) return 'alarm.range';
  return null;
}

/** A terminal-parameters screen value: numbers whole and within the type, text within GBK and length. */
export function checkParamValue(def: ParamDef, value: unknown): string | null {
  if (isBlank(value)) return 'params.required';
  if (def.type === 'STRING') {
    const text = String(value);
    try {
      if (encodeText(text).length / 2 > (def.max ?? 64)) return 'params.tooLong';
    } catch {
      return 'params.notGbk';
    }
    return null;
  }
  const n = Number(value);
  if (!Number.isInteger(n)) return 'params.notInteger';
  if (n < (def.min ?? 0) || n > (def.max ?? 0)) return 'params.range';
  return null;
}
