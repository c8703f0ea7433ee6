/**
 * Pure arithmetic of the report screens: day keys, sums per group or per day, counters per alarm key,
 * top-N, the month × day pivot of monthDataCount. Frames in, frames out, tested on tiny inputs.
 */
import { percentText } from '../list/display';
import type { ListRecord } from '../list/types';

/** Days and months as the report fields' displays show them (features/list/display.ts). */
export { dayText, monthText } from '../list/display';

function keyToDate(key: number): Date {
  return new Date(Date.UTC(Math.floor(key / 10000), (Math.floor(key / 100) % 100) - 1, key % 100));
}

function dateToKey(date: Date): number {
  return date.getUTCFullYear() * 10000 + (date.getUTCMonth() + 1) * 100 + date.getUTCDate();
}

/** Every day key from `first` to `last`, both included (at most 400). */
export function daysBetween(first: number, last: number): number[] {
  const out: number[] = [];
  for (let d = keyToDate(first); dateToKey(d) <= last && out.length < 400; d = new Date(d.getTime() + 86_400_000)) {
    out.push(dateToKey(d));
  }
  return out;
}

/** Every month key from `first` to `last` (yyyymm), both included (at most 120). */
export function monthsBetween(first: number, last: number): number[] {
  const out: number[] = [];
  for (let y = Math.floor(first / 100), m = first % 100; y * 100 + m <= last && out.length < 120;) {
    out.push(y * 100 + m);
    m += 1;
    if (m > 12) {
      m = 1;
      y += 1;
    }
  }
  return out;
}

/** Days in the month of a yyyymm key. */
export function daysInMonth(month: number): number {
  return new Date(Date.UTC(Math.floor(month / 100), month % 100, 0)).getUTCDate();
}

const num = (value: unknown): number => {
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? n : 0;
};

export interface Group {
  key: string | number;
  /** Rows in the group. */
  rows: number;
  /** The first row of the group (its names: plate, driver, enterprise). */
  first: ListRecord;
  sums: Record<string, number>;
  /** Distinct values of `distinct` fields (e.g. vehicles per enterprise). */
  distinct: Record<string, number>;
}

/** Rows grouped by a field, summing the given fields and counting distinct values of others. */
export function groupRows(rows: readonly ListRecord[], by: string, sum: readonly string[], distinct: readonly string[] = []): Group[] {
  const groups = new Map<string | number, Group & { seen: Record<string, Set<unknown>> }>();
  for (const row of rows) {
    const key = row[by] as string | number;
    let group = groups.get(key);
    if (!group) {
      group = { key, rows: 0, first: row, sums: Object.fromEntries(sum.map((f) => [f, 0])), distinct: {},
        seen: Object.fromEntries(distinct.map((f) => [f, new Set<unknown>()])) };
      groups.set(key, group);
    }
    group.rows += 1;
    for (const field of sum) group.sums[field] += num(row[field]);
    for (const field of distinct) if (row[field] !== null && row[field] !== undefined) group.seen[field].add(row[field]);
  }
  return [...groups.values()].map(({ seen, ...group }) => ({
    ...group,
    distinct: Object.fromEntries(Object.entries(seen).map(([f, values]) => [f, values.size])),
  }));
}

/** One value per day of `days` (0 where no row), summed over the rows of that day. */
export function perDay(rows: readonly ListRecord[], days: readonly number[], field: string, dayField = 'date'): number[] {
  const sums = new Map<number, number>();
  for (const row of rows) {
    const day = Number(row[dayField]);
    sums.set(day, (sums.get(day) ?? 0) + num(row[field]));
  }
  return days.map((day) => sums.get(day) ?? 0);
}

/** The sum of each counter (alarm key) over the rows; keys with 0 left out. */
export function counterTotals(rows: readonly ListRecord[], keys: readonly string[]): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const key of keys) {
    const total = rows.reduce((sum, row) => sum + num(row[key]), 0);
    if (total > 0) totals[key] = total;
  }
  return totals;
}

/** Per counter: alarms, vehicles (distinct carId with the counter > 0) and vehicle-days. */
export interface CounterStat {
  key: string;
  count: number;
  vehicles: number;
  days: number;
}

export function counterStats(rows: readonly ListRecord[], keys: readonly string[]): CounterStat[] {
  const out: CounterStat[] = [];
  for (const key of keys) {
    let count = 0;
    let days = 0;
    const vehicles = new Set<unknown>();
    for (const row of rows) {
      const n = num(row[key]);
      if (n <= 0) continue;
      count += n;
      days += 1;
      vehicles.add(row.carId ?? row.deviceId);
    }
    if (count > 0) out.push({ key, count, vehicles: vehicles.size, days });
  }
  return out.sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
}

/** The n largest (name, value) pairs, largest first; ties by name. */
export function topN<T extends { name: string; value: number }>(items: readonly T[], n: number): T[] {
  return [...items].sort((a, b) => b.value - a.value || a.name.localeCompare(b.name)).slice(0, n);
}

/** A share as a percentage with one decimal (null when the whole is 0). */
export function percent(part: number, whole: number): number | null {
  return whole > 0 ? Math.round((part / whole) * 1000) / 10 : null;
}

/** A ratio (0..1, as the KPI API gives it) as a percentage text: 0.9954 -> "99.54%"; null -> "-". */
export const ratioText = percentText;

/** Rounds to `digits` decimals. */
export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** monthDataCount: per vehicle of the month rows, the day rows' counts as d01..d31 (0 where none). */
export function pivotDays(monthRows: readonly ListRecord[], dayRows: readonly ListRecord[], field = 'points'): ListRecord[] {
  const byCar = new Map<unknown, Record<string, number>>();
  for (const row of dayRows) {
    const day = Number(row.date) % 100;
    const counts = byCar.get(row.carId) ?? {};
    counts[`d${String(day).padStart(2, '0')}`] = (counts[`d${String(day).padStart(2, '0')}`] ?? 0) + num(row[field]);
    byCar.set(row.carId, counts);
  }
  return monthRows.map((row) => {
    const days = Number(row.month) > 0 ? daysInMonth(Number(row.month)) : 31;
    const counts = byCar.get(row.carId) ?? {};
    const cells: Record<string, number | null> = {};
    for (let d = 1; d <= 31; d += 1) {
      const name = `d${String(d).padStart(2, '0')}`;
      cells[name] = d <= days ? (counts[name] ?? 0) : null;
    }
    return { ...row, ...cells };
  });
}
