// @vitest-environment jsdom
import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { EXPORT_PAGE_SIZE, pageExporter, progressPercent } from '../exporter';
import { dayPresets, subtreeIds } from '../filterKinds';
import { conditionsOf, dayKey, filterFields, monthKey, syntheticField } from '../model';
import type { EntityMeta, ListPageReply } from '../types';

const field = (name: string, type: 'int' | 'str' = 'int') => ({ ...syntheticField(name), type });

describe('filter kinds', () => {
  it('sends a report day range as yyyymmdd bounds and a month range as yyyymm', () => {
    const body = conditionsOf([field('date'), field('month')], {
      date: [dayjs('2026-10-01'), dayjs('2026-10-31')], month: [dayjs('2026-09-01'), dayjs('2026-11-01')],
    }, { date: { kind: 'dayRange' }, month: { kind: 'monthRange' } });
    expect(body).toEqual({ 'date.gte': 20261001, 'date.lte': 20261031, 'month.gte': 202609, 'month.lte': 202611 });
    expect(dayKey(dayjs('2026-01-05'))).toBe(20260105);
    expect(monthKey(dayjs('2026-12-31'))).toBe(202612);
  });

  it('sends an enterprise alone as .eq and with its subsidiaries as .in of its subtree', () => {
    const kinds = { enterpriseId: { kind: 'enterprise' as const } };
    expect(conditionsOf([field('enterpriseId')], { enterpriseId: { id: 3, subtree: false, ids: [3] } }, kinds)).toEqual({ 'enterpriseId.eq': 3 });
    expect(conditionsOf([field('enterpriseId')], { enterpriseId: { id: 3, subtree: true, ids: [3, 4, 5] } }, kinds))
      .toEqual({ 'enterpriseId.in': [3, 4, 5] });
    expect(subtreeIds({ id: 1, shortName: 'p', type: 3, state: 1, children: [
      { id: 2, shortName: 'a', type: 3, state: 1, children: [{ id: 4, shortName: 'a1', type: 3, state: 1, children: [] }] },
      { id: 3, shortName: 'b', type: 3, state: 1, children: [] },
    ] })).toEqual([1, 2, 4, 3]);
  });

  it('sends a counter choice as <key>.gt 0 and accepts it as a filter that is no field', () => {
    const kinds = { alarmType: { kind: 'positive' as const, options: [{ value: 'a1', label: '超速' }] } };
    const meta: EntityMeta = { name: 'deviceDayReport', idField: 'deviceId', permission: 'report', fields: [field('date')] };
    expect(filterFields(meta, { filters: ['date', 'alarmType'], filterKinds: kinds }).map((f) => f.name)).toEqual(['date', 'alarmType']);
    expect(() => filterFields(meta, { filters: ['nope'] })).toThrow(/no field 'nope'/);
    expect(conditionsOf([syntheticField('alarmType')], { alarmType: 'adas_1' }, kinds)).toEqual({ 'adas_1.gt': 0 });
  });

  it('offers the last 7 and 30 closed days, this month and last month', () => {
    const presets = dayPresets(dayjs('2026-11-28T10:00:00'));
    const keys = Object.fromEntries(presets.map((p) => [p.key, p.value.map((d) => d.format('YYYY-MM-DD'))]));
    expect(keys).toEqual({
      last7: ['2026-11-21', '2026-11-27'], last30: ['2026-10-29', '2026-11-27'],
      thisMonth: ['2026-11-01', '2026-11-28'], lastMonth: ['2026-10-01', '2026-10-31'],
    });
  });
});

describe('export of a report call', () => {
  it('pages through the source, reports rows read of the total and writes every row', async () => {
    const rows = Array.from({ length: EXPORT_PAGE_SIZE + 5 }, (_, i) => ({ plate: `京A${i}`, km: i }));
    const calls: number[] = [];
    const source = async (page: { pageNo: number; pageSize: number }) => {
      calls.push(page.pageNo);
      const list = rows.slice((page.pageNo - 1) * page.pageSize, page.pageNo * page.pageSize);
      return { code: 0, message: '', data: { list, total: rows.length, pageNo: page.pageNo, pageSize: page.pageSize } as ListPageReply };
    };
    const saved: Blob[] = [];
    const original = URL.createObjectURL;
    URL.createObjectURL = (blob: Blob) => { saved.push(blob); return 'blob:x'; };
    URL.revokeObjectURL = () => undefined;
    const progress: number[] = [];
    try {
      const exporter = pageExporter(source, {}, {}, [{ title: '车牌', value: (r) => String(r.plate) }, { title: 'km', value: (r) => Number(r.km) }], 'mileage');
      expect(await exporter('csv', (p) => progress.push(progressPercent(p) ?? -1), new AbortController().signal)).toBe(true);
    } finally {
      URL.createObjectURL = original;
    }
    expect(calls).toEqual([1, 2]);
    expect(progress).toEqual([99, 100]);
    const csv = await saved[0].text();
    expect(csv.split('\r\n')).toHaveLength(rows.length + 2); // header, rows, final empty line
    expect(csv).toContain(`京A${EXPORT_PAGE_SIZE + 4},${EXPORT_PAGE_SIZE + 4}`);
  });

  it('says nothing of a percentage until the whole is known', () => {
    expect(progressPercent({ done: 10, total: null, unit: 'bytes' })).toBeNull();
    expect(progressPercent({ done: 5, total: 10, unit: 'bytes' })).toBe(50);
  });
});
