import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import ChartPanel from '../../features/report/charts/ChartPanel';
import { entityRowsLoader } from '../../features/report/charts/loaders';
import { dayColumn, durationColumn, enumColumn, kmColumn, lastDays, reportScreen } from '../../features/report/reportScreen';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'driverDayReport';

/** Platform-spec §2 report driverDailyMileage: per driver and day the vehicles driven, mileage, driving time and
 * trips (driver_day_report: the IC-card driver of each trip, else the vehicle's assigned driver). */
export default function DriverDailyMileageScreen() {
  const { t } = useTranslation('report');
  const screen = useMemo(() => {
    const load = entityRowsLoader('driverDayReport', {
      trends: [{ key: 'mileage', title: t('chart.mileagePerDay'), units: [t('unit.km')], series: [{ field: 'mileageKm', name: t('fields.mileageKm') }] }],
      ranking: { key: 'top', title: t('chart.topDrivers'), by: 'driverId', name: 'driverName', field: 'mileageKm', unit: t('unit.km') },
    });
    return reportScreen({
      entity: ENTITY,
      namespace: 'report',
      columns: [dayColumn, 'driverName', 'plateNumbers', 'cars', kmColumn('mileageKm'), durationColumn('driveS'), 'trips',
        kmColumn('maxSpeedKmh'), enumColumn('driverSource', t)],
      filters: ['enterpriseId', 'driverId', 'date'],
      initialFilters: { date: lastDays() },
      requiredFilters: ['date'],
      chart: (view) => <ChartPanel view={view} load={load} />,
    });
  }, [t]);
  return <ListPage screen={screen} />;
}
