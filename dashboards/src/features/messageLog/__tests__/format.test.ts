import { describe, expect, test } from 'vitest';
import { formatMsgId, groupHexBytes, hexPreview, isGbFrame, prettyJson } from '../format';

describe('message log formatting', () => {
  test('message ids as the spec writes them', () => {
    expect(formatMsgId(512)).toBe('0x0200');
    expect(formatMsgId(0x8300)).toBe('0x8300');
    expect(formatMsgId(2)).toBe('0x0002');
    expect(formatMsgId(null)).toBe('');
    expect(formatMsgId('x')).toBe('x');
  });

  test('a GB terminal\'s header command in two digits, an 808 message id in four', () => {
    expect(formatMsgId(2, 'gb32960')).toBe('0x02');
    expect(formatMsgId(0x82, 'gb17691')).toBe('0x82');
    expect(formatMsgId(2, 'jt808')).toBe('0x0002');
    expect(formatMsgId(2, undefined)).toBe('0x0002');
    expect([isGbFrame({ protocol: 'gb17691' }), isGbFrame({ protocol: 'jt808' }), isGbFrame({})]).toEqual([true, false, false]);
  });

  test('hex grouped in bytes, 16 a line', () => {
    const frame = '7e0200001c013800000001000a' + '00'.repeat(20) + '7e';
    const lines = groupHexBytes(frame).split('\n');
    expect(lines[0]).toBe('7E 02 00 00 1C 01 38 00 00 00 01 00 0A 00 00 00');
    expect(lines.every((line) => line.split(' ').every((b) => /^[0-9A-F]{2}$/.test(b)))).toBe(true);
    expect(lines.join(' ').split(' ')).toHaveLength(frame.length / 2);
    expect(groupHexBytes('7e0')).toBe('7e0'); // odd: shown as is
    expect(groupHexBytes(undefined)).toBe('');
  });

  test('the table shows the first bytes', () => {
    expect(hexPreview('7e02007e', 12)).toBe('7E 02 00 7E');
    expect(hexPreview('00'.repeat(20), 4)).toBe('00 00 00 00 …');
  });

  test('stored JSON pretty-printed', () => {
    expect(prettyJson('{"a":1,"b":[1,2]}')).toBe('{\n  "a": 1,\n  "b": [\n    1,\n    2\n  ]\n}');
    expect(prettyJson('not json')).toBe('not json');
    expect(prettyJson(null)).toBe('');
  });
});
