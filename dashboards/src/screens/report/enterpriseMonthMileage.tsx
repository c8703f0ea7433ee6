import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import ChartPanel from '../../features/report/charts/ChartPanel';
import { entityRowsLoader } from '../../features/report/charts/loaders';
import { durationColumn, kmColumn, lastMonths, monthColumn, reportScreen } from '../../features/report/reportScreen';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'enterpriseMonthReport';

/** Platform-spec §2 report enterpriseMonthMileage: per enterprise and month (enterprise_month_report). */
export default function EnterpriseMonthMileageScreen() {
  const { t } = useTranslation('report');
  const screen = useMemo(() => {
    const load = entityRowsLoader('enterpriseMonthReport', {
      months: true,
      trends: [{ key: 'mileage', title: t('chart.mileagePerMonth'), units: [t('unit.km')], series: [{ field: 'mileageKm', name: t('fields.mileageKm') }] }],
      ranking: { key: 'top', title: t('chart.topEnterprises'), by: 'enterpriseId', name: 'enterpriseName', field: 'mileageKm', unit: t('unit.km') },
    });
    return reportScreen({
      entity: ENTITY,
      namespace: 'report',
      columns: [monthColumn, 'enterpriseName', 'vehicles', 'activeVehicles', 'vehicleDays', 'activeVehicleDays', kmColumn('mileageKm'),
        durationColumn('driveS'), 'trips', 'alarms'],
      filters: ['enterpriseId', 'month'],
      initialFilters: { month: lastMonths() },
      requiredFilters: ['month'],
      chart: (view) => <ChartPanel view={view} load={load} />,
    });
  }, [t]);
  return <ListPage screen={screen} />;
}
