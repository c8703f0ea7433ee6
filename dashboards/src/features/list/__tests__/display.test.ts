import { describe, expect, it } from 'vitest';
import { cellText, displayText } from '../display';
import { exportColumns } from '../exporter';
import { field } from '../../../test/listFixtures';

describe('a field shown by its display (the server\'s FieldSpec.display)', () => {
  it('spells days and months as dates, seconds as h:mm:ss, kilometres to 2 decimals, ratios as %', () => {
    expect(displayText('day', 20261130)).toBe('2026-11-30');
    expect(displayText('month', 202611)).toBe('2026-11');
    expect(displayText('duration', 3723)).toBe('1:02:03');
    expect(displayText('duration', 90061)).toBe('25:01:01');
    expect(displayText('decimal', 316.6000000000058)).toBe('316.6');
    expect(displayText('decimal', 1234.449999)).toBe('1234.45');
    expect(displayText('percent', 0.8333333333333334)).toBe('83.33%');
    expect(displayText('percent', null)).toBe('-');
    expect(displayText('flag', true)).toBe('✓');
    expect(displayText('', 5)).toBeNull();
  });

  it('shows an enum code as its label and an empty value as nothing', () => {
    const label = (v: unknown) => ({ 1: '仪表', 2: 'GPS' } as Record<string, string>)[String(v)] ?? String(v);
    expect(cellText(field('mileageSource', { type: 'int', enum: [1, 2] }), 2, label)).toBe('GPS');
    expect(cellText(field('mileageKm', { type: 'float', display: 'decimal' }), null, label)).toBe('');
  });
});

describe('the columns of a browser-written export', () => {
  it('carry what the table shows: labels for codes, the display\'s text, numbers as numbers', () => {
    const plan = [
      { field: field('date', { type: 'int', display: 'day' }), decl: null },
      { field: field('mileageSource', { type: 'int', enum: [1, 2] }), decl: null },
      { field: field('mileageKm', { type: 'float', display: 'decimal' }), decl: null },
      { field: field('driveS', { type: 'int', display: 'duration' }), decl: null },
      { field: field('trips', { type: 'int' }), decl: null },
    ];
    const label = (v: unknown) => ({ 1: '仪表', 2: 'GPS' } as Record<string, string>)[String(v)] ?? String(v);
    const columns = exportColumns(plan, (f, v) => cellText(f, v, label), (f) => f.name);
    const record = { date: 20261130, mileageSource: 1, mileageKm: 316.6000000000058, driveS: 3723, trips: 4 };
    expect(columns.map((c) => c.value(record))).toEqual(['2026-11-30', '仪表', 316.6, '1:02:03', 4]);
  });
});
