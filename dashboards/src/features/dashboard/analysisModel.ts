/**
 * The monitor charts (platform-spec §2: speed, mileage, overspeed, driving time, average speed), pure: from
 * the fleet's sums per day and the speeds of the vehicles online now.
 */
import type { ListRecord } from '../list/types';
import { perDay, round } from '../report/aggregate';
import { bucketLabels, dayLabels, histogram, trendOption } from '../report/charts/options';

export const SPEED_BOUNDS = [0, 1, 20, 40, 60, 80, 100, 120];
export const DAY_FIELDS = ['mileageKm', 'driveS', 'overspeedCount', 'overspeedS'];

type Label = (key: string) => string;

/** Average speed while driving: km over driving hours (null for a day without driving). */
export function averageSpeeds(km: readonly number[], driveS: readonly number[]): (number | null)[] {
  return km.map((k, i) => (driveS[i] > 0 ? round(k / (driveS[i] / 3600), 1) : null));
}

export function monitorCharts(dayRows: readonly ListRecord[], days: readonly number[], speedsNow: readonly number[], t: Label) {
  const labels = dayLabels(days);
  const km = perDay(dayRows, days, 'mileageKm').map((v) => round(v, 1));
  const driveS = perDay(dayRows, days, 'driveS');
  return {
    speed: trendOption({ categories: bucketLabels(SPEED_BOUNDS), units: [t('vehicles')],
      series: [{ name: t('speed'), data: histogram(speedsNow, SPEED_BOUNDS), colour: '#13c2c2' }] }),
    mileage: trendOption({ categories: labels, units: [t('km')], series: [{ name: t('mileage'), data: km }] }),
    overspeed: trendOption({ categories: labels, units: ['', t('overspeedMin')], series: [
      { name: t('overspeedCount'), data: perDay(dayRows, days, 'overspeedCount'), colour: '#f5222d' },
      { name: t('overspeedMin'), type: 'line', yAxisIndex: 1, data: perDay(dayRows, days, 'overspeedS').map((s) => round(s / 60, 1)), colour: '#fa8c16' },
    ] }),
    driving: trendOption({ categories: labels, units: [t('hours')], series: [{ name: t('driving'), data: driveS.map((s) => round(s / 3600, 1)), colour: '#52c41a' }] }),
    avgSpeed: trendOption({ categories: labels, units: [t('kmh')], series: [{ name: t('avgSpeed'), type: 'line', data: averageSpeeds(km, driveS), colour: '#722ed1' }] }),
  };
}
