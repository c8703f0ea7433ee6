import { describe, expect, it } from 'vitest';
import { answeredParams, GB_SETTABLE, gbParamValue } from '../gbParams';

describe('GB/T 32960 table 24 in the console', () => {
  it('takes numbers within the width and printable ASCII domains', () => {
    expect(gbParamValue('02', '10')).toBe(10);
    expect(gbParamValue('01', '65535')).toBe(65535);
    expect(gbParamValue('01', '65536')).toBeNull();
    expect(gbParamValue('09', '256')).toBeNull();
    expect(gbParamValue('09', '-1')).toBeNull();
    expect(gbParamValue('09', '1.5')).toBeNull();
    expect(gbParamValue('05', ' gb.example.com ')).toBe('gb.example.com');
    expect(gbParamValue('05', '域名')).toBeNull();
    expect(gbParamValue('05', 'x'.repeat(256))).toBeNull();
  });

  it('never offers the derived lengths or the read-only versions', () => {
    expect(GB_SETTABLE.map((p) => p.id)).not.toEqual(expect.arrayContaining(['04']));
    for (const id of ['04', '07', '08', '0D', '11']) expect(gbParamValue(id, '1')).toBeNull();
  });

  it("reads a query answer's items and nothing else", () => {
    const reply = { response: 1, params: [{ id: '02', name: 'report_period_s', value: 10 }, { id: 3 }, null] };
    expect(answeredParams(reply)).toEqual([{ id: '02', name: 'report_period_s', value: 10 }]);
    expect(answeredParams({ response: 1 })).toEqual([]);
    expect(answeredParams(null)).toEqual([]);
  });
});
