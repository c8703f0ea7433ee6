/**
 * The validators of console-spec §5, as pure functions. Each returns undefined when the value is
 * acceptable — including an empty value (required-ness is a separate rule) — or the i18n key of its
 * message in the `validation` namespace.
 */
export type Validator = (value: unknown) => string | undefined;

function present(value: unknown): value is string | number {
  return value !== undefined && value !== null && String(value).trim() !== '';
}

function check(pattern: (text: string) => boolean, messageKey: string): Validator {
  return (value) => (!present(value) || pattern(String(value)) ? undefined : messageKey);
}

const USERNAME = /^[A-Za-z][A-Za-z0-9_]{3,15}$/;
/** 6-16 printable ASCII characters without spaces (same rule as the API). */
const PASSWORD_CHARS = /^[!-~]{6,16}$/;
const NAME = /^[\u4e00-\u9fa5A-Za-z0-9 _-]+$/;
const ALPHANUMERIC = /^[\u4e00-\u9fa5A-Za-z0-9_]+$/;
/** Mobile (11 digits) or landline with optional area code and extension (same rule as the API). */
const PHONE = /^(?:\d{11}|(?:0\d{2,3}-?)?\d{7,8}(?:-\d{1,6})?)$/;
const NATIONAL_ID = /^[1-9]\d{5}(18|19|20)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])\d{3}[\dX]$/;

const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const ID_CHECK_CHARS = '10X98765432';

/** At least two kinds among digits, letters and symbols. */
export function passwordIsStrong(password: string): boolean {
  if (!PASSWORD_CHARS.test(password)) return false;
  const kinds = [/\d/, /[A-Za-z]/, /[^A-Za-z0-9]/].filter((kind) => kind.test(password));
  return kinds.length >= 2;
}

/** The GB 11643 check character of the first 17 digits of an 18-character national ID. */
export function nationalIdCheckChar(first17: string): string {
  const sum = ID_WEIGHTS.reduce((total, weight, index) => total + weight * Number(first17[index]), 0);
  return ID_CHECK_CHARS[sum % 11];
}

function birthDateExists(id: string): boolean {
  const year = Number(id.slice(6, 10));
  const month = Number(id.slice(10, 12));
  const day = Number(id.slice(12, 14));
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

export function nationalIdIsValid(raw: string): boolean {
  const id = raw.toUpperCase();
  return NATIONAL_ID.test(id) && birthDateExists(id) && nationalIdCheckChar(id.slice(0, 17)) === id[17];
}

const HEX_COLOR = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const BYTE = '\\s*(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)\\s*';
const ALPHA = '\\s*(?:0|1|0?\\.\\d+|1\\.0*)\\s*';
const RGB_COLOR = new RegExp(`^rgb\\(${BYTE},${BYTE},${BYTE}\\)$|^rgba\\(${BYTE},${BYTE},${BYTE},${ALPHA}\\)$`, 'i');

/**
 * Platform-spec §5: a colour is hex of at least 4 characters starting with # (the CSS forms #rgb, #rgba,
 * #rrggbb, #rrggbbaa: a hex of another length is no colour a browser draws), or an rgb / rgba string.
 */
export function colorIsValid(value: unknown): value is string {
  return typeof value === 'string' && (HEX_COLOR.test(value.trim()) || RGB_COLOR.test(value.trim()));
}

export const validateUsername = check((v) => USERNAME.test(v), 'validation:username');
export const validatePassword = check(passwordIsStrong, 'validation:password');
export const validateName = check((v) => NAME.test(v), 'validation:name');
export const validateAlphanumeric = check((v) => ALPHANUMERIC.test(v), 'validation:alphanumeric');
export const validatePhone = check((v) => PHONE.test(v), 'validation:phone');
export const validateNationalId = check(nationalIdIsValid, 'validation:nationalId');
