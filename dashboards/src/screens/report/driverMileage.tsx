import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import ChartPanel from '../../features/report/charts/ChartPanel';
import { entityRowsLoader } from '../../features/report/charts/loaders';
import { durationColumn, kmColumn, lastDays, reportScreen } from '../../features/report/reportScreen';
import { groupSource } from '../../features/report/sources';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'driverDayReport';

/** Platform-spec §2 report driverMileage: each driver's totals over the chosen days, summed here from the
 * driver day rows (the same rows as driverDailyMileage, so both screens agree). */
export default function DriverMileageScreen() {
  const { t } = useTranslation('report');
  const screen = useMemo(() => {
    const load = entityRowsLoader('driverDayReport', {
      trends: [],
      ranking: { key: 'top', title: t('chart.topDrivers'), by: 'driverId', name: 'driverName', field: 'mileageKm', unit: t('unit.km') },
    });
    return reportScreen({
      entity: ENTITY,
      namespace: 'report',
      columns: ['driverName', kmColumn('mileageKm'), durationColumn('driveS'), 'trips',
        { key: 'dateCount', title: t('fields.activeDays'), render: (_v, r) => Number(r.dateCount ?? 0) }],
      filters: ['enterpriseId', 'driverId', 'date'],
      initialFilters: { date: lastDays() },
      requiredFilters: ['date'],
      fetchPage: groupSource({ entity: ENTITY, by: 'driverId', sum: ['mileageKm', 'driveS', 'trips'], distinct: ['date'],
        names: ['driverName'], order: 'mileageKm' }),
      rowKey: (r) => String(r.driverId),
      exportName: 'driverMileage',
      chart: (view) => <ChartPanel view={view} load={load} />,
    });
  }, [t]);
  return <ListPage screen={screen} />;
}
