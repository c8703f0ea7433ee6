import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import ChartPanel, { type ChartLoader } from '../../features/report/charts/ChartPanel';
import { rowsFor } from '../../features/report/charts/loaders';
import { bucketLabels, histogram, trendOption } from '../../features/report/charts/options';
import { durationColumn, enumColumn, kmColumn, lastDays, reportScreen, replayHref } from '../../features/report/reportScreen';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'trip';

const DISTANCE_BOUNDS = [0, 5, 10, 20, 50, 100, 200];
const DURATION_BOUNDS_MIN = [0, 10, 20, 30, 60, 120, 240];

/** Platform-spec §2 report drivingTrip: each trip (start and end time, place and odometer, distance, duration,
 * top and average speed, driver) with its replay; how long and how far the trips were. */
export default function DrivingTripScreen() {
  const { t } = useTranslation('report');
  const screen = useMemo(() => {
    const load: ChartLoader = async (view, signal) => {
      const { rows } = await rowsFor('trip', view, ['distanceKm', 'durationS'], signal);
      const distance = histogram(rows.map((r) => Number(r.distanceKm) || 0), DISTANCE_BOUNDS);
      const duration = histogram(rows.map((r) => (Number(r.durationS) || 0) / 60), DURATION_BOUNDS_MIN);
      return [
        { key: 'distance', title: t('chart.tripDistance'), points: rows.length, option: trendOption({
          categories: bucketLabels(DISTANCE_BOUNDS), units: [t('unit.trips')], series: [{ name: t('chart.trips'), data: distance }] }) },
        { key: 'duration', title: t('chart.tripDuration'), points: rows.length, option: trendOption({
          categories: bucketLabels(DURATION_BOUNDS_MIN), units: [t('unit.trips')], series: [{ name: t('chart.trips'), data: duration, colour: '#13c2c2' }] }) },
      ];
    };
    return reportScreen({
      entity: ENTITY,
      namespace: 'report',
      columns: ['plateNumber', 'startAt', 'endAt', kmColumn('distanceKm'), durationColumn('durationS'), kmColumn('maxSpeedKmh'),
        kmColumn('avgSpeedKmh'), kmColumn('startOdoKm'), kmColumn('endOdoKm'), 'startLng', 'startLat', 'endLng', 'endLat',
        enumColumn('driverSource', t), 'truncated'],
      filters: ['enterpriseId', 'carId', 'driverId', 'date'],
      initialFilters: { date: lastDays() },
      requiredFilters: ['date'],
      rowKey: (r) => `${String(r.carId)}-${String(r.startAt)}`,
      rowActions: [{ key: 'replay', label: t('actions.replay'), href: (r) => replayHref(r) }],
      chart: (view) => <ChartPanel view={view} load={load} />,
    });
  }, [t]);
  return <ListPage screen={screen} />;
}
