import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import { alarmCountColumn } from '../../features/report/AlarmCountCell';
import ChartPanel from '../../features/report/charts/ChartPanel';
import { entityRowsLoader } from '../../features/report/charts/loaders';
import { dayColumn, durationColumn, kmColumn, lastDays, reportScreen } from '../../features/report/reportScreen';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'enterpriseDayReport';

/** Platform-spec §2 report enterpriseDailyMileage: per enterprise and day its vehicles, those driven and
 * online, mileage, driving time, trips, km per vehicle driven, alarms (enterprise_day_report: its own terminals'
 * alarms of the day, which the count opens, reportAlarmDetail). */
export default function EnterpriseDailyMileageScreen() {
  const { t } = useTranslation('report');
  const screen = useMemo(() => {
    const load = entityRowsLoader('enterpriseDayReport', {
      trends: [{ key: 'mileage', title: t('chart.mileagePerDay'), units: [t('unit.km'), t('unit.vehicles')], series: [
        { field: 'mileageKm', name: t('fields.mileageKm') },
        { field: 'activeVehicles', name: t('fields.activeVehicles'), type: 'line', yAxisIndex: 1 },
      ] }],
      ranking: { key: 'top', title: t('chart.topEnterprises'), by: 'enterpriseId', name: 'enterpriseName', field: 'mileageKm', unit: t('unit.km') },
    });
    return reportScreen({
      entity: ENTITY,
      namespace: 'report',
      columns: [dayColumn, 'enterpriseName', 'vehicles', 'activeVehicles', 'onlineVehicles', kmColumn('mileageKm'),
        durationColumn('driveS'), 'trips', kmColumn('avgKmPerActive'),
        alarmCountColumn('alarms', (r) => ({ enterpriseId: Number(r.enterpriseId), startDate: Number(r.date), endDate: Number(r.date),
          kind: 'alarmTotal' }))],
      filters: ['enterpriseId', 'date'],
      initialFilters: { date: lastDays() },
      requiredFilters: ['date'],
      chart: (view) => <ChartPanel view={view} load={load} />,
    });
  }, [t]);
  return <ListPage screen={screen} />;
}
