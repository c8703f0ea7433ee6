/** JT/T 809 message names from the exchange message descriptions (platform-spec §7 `exchange_message_desc`,
 * loaded at sign-in): `[{id: "0x1001", name, nameEn}]`. */
import { cachedDictionary } from '../dictionary/dictionaryCache';
import { formatMsgId } from '../messageLog/format';

interface Described {
  id: string;
  name: string;
  nameEn?: string;
}

function entries(value: unknown): Described[] {
  if (!Array.isArray(value)) return [];
  return value.filter((e): e is Described => !!e && typeof e === 'object' && typeof (e as Described).id === 'string'
    && typeof (e as Described).name === 'string');
}

/** The message's name in `language` (en-US: the English one), '' when the descriptions do not know it. */
export function exchangeMessageName(msgId: unknown, language: string, described: unknown = cachedDictionary('exchange_message_desc')): string {
  const id = formatMsgId(msgId);
  const found = entries(described).find((e) => e.id.toUpperCase() === id.toUpperCase());
  if (!found) return '';
  return language.startsWith('en') ? (found.nameEn || found.name) : found.name;
}

/** "0x1001 主链路登录请求" (the id alone when unnamed). */
export function exchangeMessageLabel(msgId: unknown, language: string, described?: unknown): string {
  const name = exchangeMessageName(msgId, language, described ?? cachedDictionary('exchange_message_desc'));
  return name ? `${formatMsgId(msgId)} ${name}` : formatMsgId(msgId);
}

/** The message id filter's choices, from the descriptions. */
export function exchangeMessageOptions(language: string, described: unknown = cachedDictionary('exchange_message_desc')
): { value: number; label: string }[] {
  return entries(described).map((e) => ({ value: Number.parseInt(e.id, 16), label: `${e.id} ${language.startsWith('en') ? (e.nameEn || e.name) : e.name}` }))
    .filter((o) => Number.isInteger(o.value));
}
