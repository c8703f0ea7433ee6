/** Message names of the exchange frame log from the exchange message descriptions (platform-spec §7
 * `exchange_message_desc`, loaded at sign-in): `[{id: "0x1001", name, nameEn, protocol: "jt809"}]` for the JT/T 809
 * messages and `[{id: "0x05", ..., protocol: "gb32960"}]` for the GB/T 32960 commands of a GB inferior platform's
 * link (the same number is another message in each protocol; an entry without `protocol` is JT/T 809's). */
import { cachedDictionary } from '../dictionary/dictionaryCache';
import { formatMsgId } from '../messageLog/format';

interface Described {
  id: string;
  name: string;
  nameEn?: string;
  protocol?: string;
}

/** The protocol of a frame log row: a GB/T 32960 inferior platform's frames are GB/T 32960 commands. */
export type ExchangeProtocol = 'jt809' | 'gb32960';

export function protocolOfPlatformKind(kind: unknown): ExchangeProtocol {
  return kind === 'gb32960_inferior' ? 'gb32960' : 'jt809';
}

function entries(value: unknown): Described[] {
  if (!Array.isArray(value)) return [];
  return value.filter((e): e is Described => !!e && typeof e === 'object' && typeof (e as Described).id === 'string'
    && typeof (e as Described).name === 'string');
}

function protocolOf(entry: Described): ExchangeProtocol {
  return entry.protocol === 'gb32960' ? 'gb32960' : 'jt809';
}

/** A message id as its protocol writes it: 4 hex digits in JT/T 809, 2 in GB/T 32960. */
export function formatExchangeMsgId(msgId: unknown, protocol: ExchangeProtocol = 'jt809'): string {
  const id = Number(msgId);
  if (protocol === 'gb32960' && Number.isInteger(id) && id >= 0 && id <= 0xff) {
    return `0x${id.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return formatMsgId(msgId);
}

function nameIn(entry: Described, language: string): string {
  return language.startsWith('en') ? (entry.nameEn || entry.name) : entry.name;
}

/** The message's name in `language` (en-US: the English one), '' when the descriptions do not know it. */
export function exchangeMessageName(msgId: unknown, language: string, described: unknown = cachedDictionary('exchange_message_desc'),
  protocol: ExchangeProtocol = 'jt809'): string {
  const id = Number(msgId);
  const found = entries(described).find((e) => protocolOf(e) === protocol && Number.parseInt(e.id, 16) === id);
  return found ? nameIn(found, language) : '';
}

/** "0x1001 主链路登录请求", "0x05 平台登入" (the id alone when unnamed). */
export function exchangeMessageLabel(msgId: unknown, language: string, described?: unknown,
  protocol: ExchangeProtocol = 'jt809'): string {
  const name = exchangeMessageName(msgId, language, described ?? cachedDictionary('exchange_message_desc'), protocol);
  const id = formatExchangeMsgId(msgId, protocol);
  return name ? `${id} ${name}` : id;
}

/** The message id filter's choices, from the descriptions: the JT/T 809 messages, then the GB/T 32960 commands
 * (marked with the standard's name: their ids are numbers the JT/T 809 messages do not use). */
export function exchangeMessageOptions(language: string, described: unknown = cachedDictionary('exchange_message_desc')
): { value: number; label: string }[] {
  return entries(described).map((e) => ({
    value: Number.parseInt(e.id, 16),
    label: `${e.id} ${nameIn(e, language)}${protocolOf(e) === 'gb32960' ? ' (GB/T 32960)' : ''}`,
  })).filter((o) => Number.isInteger(o.value));
}
