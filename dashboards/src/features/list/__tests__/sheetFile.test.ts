import { describe, expect, it } from 'vitest';
import { exportCell } from '../exporter';
import { columnName, crc32, csvCell, storedZip, toCsv, toXlsx } from '../sheetFile';

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('spreadsheets written in the browser', () => {
  it('writes CSV with a BOM, quotes where needed and empty cells for no value', () => {
    expect(toCsv(['车牌', '里程'], [['京A,1', 20.5], ['say "hi"', null]]))
      .toBe('\uFEFF车牌,里程\r\n"京A,1",20.5\r\n"say ""hi""",\r\n');
  });

  it('neutralises text a spreadsheet would run as a formula, as the server exports do', () => {
    expect(['=1+2', '+1', '-1', '@SUM(A1)', '\t=1', '\r=1'].map(csvCell)).toEqual(["'=1+2", "'+1", "'-1", "'@SUM(A1)", "'\t=1", '"\'\r=1"']);
    expect(toCsv(['备注'], [['=HYPERLINK("http://x","y")']])).toBe('\uFEFF备注\r\n"\'=HYPERLINK(""http://x"",""y"")"\r\n');
    // numbers stay numbers (a negative mileage is not text); harmless text is unchanged
    expect([-3, 0, 'a=1', '京A12345'].map(csvCell)).toEqual(['-3', '0', 'a=1', '京A12345']);
    expect(csvCell('-')).toBe('-'); // a table's "no value" is no formula
  });

  it('keeps a number a column rendered as text a number, identifiers and other text text', () => {
    expect(['240.8', '0', '-3', '12', '0.5'].map(exportCell)).toEqual([240.8, 0, -3, 12, 0.5]);
    expect(['013800000001', '1101011990030712345', '12%', '1h 2m', '', ' 5', '1e3', '京A12345'].map(exportCell))
      .toEqual(['013800000001', '1101011990030712345', '12%', '1h 2m', '', ' 5', '1e3', '京A12345']);
  });

  it('names columns as spreadsheets do', () => {
    expect([0, 25, 26, 27, 701, 702].map(columnName)).toEqual(['A', 'Z', 'AA', 'AB', 'ZZ', 'AAA']);
  });

  it('computes the CRC-32 zip entries carry', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
  });

  it('writes a zip of stored entries with local headers, a central directory and an end record', () => {
    const zip = storedZip([{ name: 'a.txt', data: new TextEncoder().encode('hello') }]);
    const view = new DataView(zip.buffer);
    expect(view.getUint32(0, true)).toBe(0x04034b50);
    expect(text(zip.slice(30, 35))).toBe('a.txt');
    expect(text(zip.slice(35, 40))).toBe('hello');
    const end = zip.length - 22;
    expect(view.getUint32(end, true)).toBe(0x06054b50);
    expect(view.getUint16(end + 10, true)).toBe(1);
    expect(view.getUint32(view.getUint32(end + 16, true), true)).toBe(0x02014b50);
  });

  it('puts numbers as numbers and text as escaped inline strings in the XLSX sheet', () => {
    const xlsx = toXlsx(['车牌', '里程'], [['京A<1>', 20.5], [null, true]], '里程汇总');
    const all = text(xlsx);
    expect(all).toContain('xl/worksheets/sheet1.xml');
    expect(all).toContain('<c r="A2" t="inlineStr"><is><t xml:space="preserve">京A&lt;1&gt;</t></is></c>');
    expect(all).toContain('<c r="B2"><v>20.5</v></c>');
    expect(all).toContain('<c r="B3" t="b"><v>1</v></c>');
    expect(all).toContain('<sheet name="里程汇总" sheetId="1" r:id="rId1"/>');
  });
});
