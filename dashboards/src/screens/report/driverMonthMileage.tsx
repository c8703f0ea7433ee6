import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import ChartPanel from '../../features/report/charts/ChartPanel';
import { entityRowsLoader } from '../../features/report/charts/loaders';
import { gradeColumn } from '../../features/report/GradeCell';
import { durationColumn, kmColumn, lastMonths, monthColumn, reportScreen } from '../../features/report/reportScreen';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'driverMonthReport';

/** Platform-spec §2 report driverMonthMileage: per driver and month (driver_month_report), with the month's
 * driving-behaviour score (its days' averaged by driving time; the deductions on hover, drivingGradeRule). */
export default function DriverMonthMileageScreen() {
  const { t } = useTranslation('report');
  const screen = useMemo(() => {
    const load = entityRowsLoader('driverMonthReport', {
      months: true,
      trends: [{ key: 'mileage', title: t('chart.mileagePerMonth'), units: [t('unit.km')], series: [{ field: 'mileageKm', name: t('fields.mileageKm') }] }],
      ranking: { key: 'top', title: t('chart.topDrivers'), by: 'driverId', name: 'driverName', field: 'mileageKm', unit: t('unit.km') },
    });
    return reportScreen({
      entity: ENTITY,
      namespace: 'report',
      columns: [monthColumn, 'driverName', 'days', kmColumn('mileageKm'), durationColumn('driveS'), 'trips', gradeColumn(t)],
      filters: ['enterpriseId', 'driverId', 'month'],
      initialFilters: { month: lastMonths() },
      requiredFilters: ['month'],
      chart: (view) => <ChartPanel view={view} load={load} />,
    });
  }, [t]);
  return <ListPage screen={screen} />;
}
