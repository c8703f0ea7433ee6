import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import { round } from '../../features/report/aggregate';
import ChartPanel from '../../features/report/charts/ChartPanel';
import { entityRowsLoader } from '../../features/report/charts/loaders';
import { durationColumn, kmColumn, lastDays, reportScreen } from '../../features/report/reportScreen';
import { groupSource } from '../../features/report/sources';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'enterpriseDayReport';

/** Platform-spec §2 report enterpriseMileage: each enterprise's totals over the chosen days, summed here from
 * its day rows: mileage, driving time, trips, alarms, vehicle-days driven and km per vehicle-day driven. */
export default function EnterpriseMileageScreen() {
  const { t } = useTranslation('report');
  const screen = useMemo(() => {
    const load = entityRowsLoader('enterpriseDayReport', {
      trends: [],
      ranking: { key: 'top', title: t('chart.topEnterprises'), by: 'enterpriseId', name: 'enterpriseName', field: 'mileageKm', unit: t('unit.km') },
    });
    return reportScreen({
      entity: ENTITY,
      namespace: 'report',
      columns: ['enterpriseName', kmColumn('mileageKm'), durationColumn('driveS'), 'trips', 'alarms',
        { key: 'activeVehicleDays', title: t('fields.activeVehicleDays'), render: (_v, r) => Number(r.activeVehicles ?? 0) },
        { key: 'kmPerActive', title: t('fields.avgKmPerActive'), render: (_v, r) => (Number(r.activeVehicles) > 0 ? round(Number(r.mileageKm) / Number(r.activeVehicles), 2) : '') }],
      filters: ['enterpriseId', 'date'],
      initialFilters: { date: lastDays() },
      requiredFilters: ['date'],
      fetchPage: groupSource({ entity: ENTITY, by: 'enterpriseId', sum: ['mileageKm', 'driveS', 'trips', 'alarms', 'activeVehicles'],
        names: ['enterpriseName'], order: 'mileageKm' }),
      rowKey: (r) => String(r.enterpriseId),
      exportName: 'enterpriseMileage',
      chart: (view) => <ChartPanel view={view} load={load} />,
    });
  }, [t]);
  return <ListPage screen={screen} />;
}
