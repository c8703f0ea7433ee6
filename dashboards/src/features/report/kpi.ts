/** The regulator KPIs of the console (docs/kpi.md): ratios from summed counts, never averaged percentages. */
import type { ListRecord } from '../list/types';
import { round } from './aggregate';

/** The KPIs and the counts they divide: [ratio field, numerator, denominator]. */
export const KPI_RATIOS: [string, string, string][] = [
  ['joinRate', 'joinedVehicles', 'vehicles'],
  ['onlineRate', 'onlineVehicles', 'joinedVehicles'],
  ['completenessRate', 'completeKm', 'totalKm'],
  ['qualificationRate', 'qualifiedPoints', 'totalPoints'],
  ['driftRate', 'driftVehicles', 'onlineVehicles'],
];

/** One day's ratios (percent) from the summed counts of its rows. */
export function dayRatios(rows: readonly ListRecord[], days: readonly number[]): Record<string, (number | null)[]> {
  const out: Record<string, (number | null)[]> = {};
  for (const [ratio, num, den] of KPI_RATIOS) {
    out[ratio] = days.map((day) => {
      const of = rows.filter((r) => Number(r.date) === day);
      const n = of.reduce((s, r) => s + (Number(r[num]) || 0), 0);
      const d = of.reduce((s, r) => s + (Number(r[den]) || 0), 0);
      return d > 0 ? round((n / d) * 100, 2) : null;
    });
  }
  return out;
}
