import { describe, expect, it } from 'vitest';
import { decodeNumber, decodeText, decodeValue, encodeNumber, encodeText, encodeValue, paramIdHex } from '../paramValues';

describe('terminal parameter hex values', () => {
  it('names parameter ids with four upper-case hex digits', () => {
    expect(paramIdHex(0x55)).toBe('0055');
    expect(paramIdHex(0x005b)).toBe('005B');
    expect(paramIdHex(0xf364)).toBe('F364');
  });

  it('encodes numbers at the width of their type and reads them back', () => {
    expect(encodeNumber(60, 'DWORD')).toBe('0000003C');
    expect(encodeNumber(300, 'WORD')).toBe('012C');
    expect(encodeNumber(2, 'BYTE')).toBe('02');
    expect(encodeNumber(0xffffffff, 'DWORD')).toBe('FFFFFFFF');
    expect(decodeNumber('0000003C')).toBe(60);
    expect(decodeNumber('012c')).toBe(300);
  });

  it('refuses numbers that do not fit the type', () => {
    expect(() => encodeNumber(256, 'BYTE')).toThrow(RangeError);
    expect(() => encodeNumber(65536, 'WORD')).toThrow(RangeError);
    expect(() => encodeNumber(-1, 'DWORD')).toThrow(RangeError);
    expect(() => encodeNumber(1.5, 'DWORD')).toThrow(RangeError);
    expect(decodeNumber('xyz')).toBeNull();
    expect(decodeNumber('123456789')).toBeNull();
  });

  it('encodes text as GBK (the plate of the standard) and decodes it, dropping trailing NULs', () => {
    expect(encodeText('京A12345')).toBe('BEA9413132333435');
    expect(encodeText('cmnet')).toBe('636D6E6574');
    expect(decodeText('BEA9413132333435')).toBe('京A12345');
    expect(decodeText('636D6E657400')).toBe('cmnet');
    expect(decodeText('ABC')).toBeNull();
    expect(() => encodeText('😀')).toThrow(RangeError);
  });

  it('round-trips every type through encodeValue / decodeValue', () => {
    expect(decodeValue(encodeValue(120, 'DWORD'), 'DWORD')).toBe(120);
    expect(decodeValue(encodeValue('粤B·12345'.replace('·', ''), 'STRING'), 'STRING')).toBe('粤B12345');
    expect(decodeValue(encodeValue(1, 'BYTE'), 'BYTE')).toBe(1);
  });
});
