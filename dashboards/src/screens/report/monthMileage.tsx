import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import ChartPanel from '../../features/report/charts/ChartPanel';
import { monthSumsLoader } from '../../features/report/charts/loaders';
import { gradeColumn } from '../../features/report/GradeCell';
import { durationColumn, kmColumn, lastMonths, monthColumn, reportScreen } from '../../features/report/reportScreen';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'carMonthReport';

/** Platform-spec §2 report monthMileage: each vehicle's month (car_month_report: mileage, days driven,
 * driving time, km per day driven, the month's driving-behaviour score) and the fleet's mileage per month. */
export default function MonthMileageScreen() {
  const { t } = useTranslation('report');
  const screen = useMemo(() => {
    const load = monthSumsLoader({ key: 'mileage', title: t('chart.mileagePerMonth'), units: [t('unit.km'), t('unit.days')], series: [
      { field: 'mileageKm', name: t('fields.mileageKm') },
      { field: 'activeDays', name: t('fields.activeDays'), type: 'line', yAxisIndex: 1 },
    ] });
    return reportScreen({
      entity: ENTITY,
      namespace: 'report',
      columns: [monthColumn, 'plateNumber', kmColumn('mileageKm'), 'days', 'activeDays', 'onlineDays', durationColumn('driveS'),
        kmColumn('avgKmPerActiveDay'), 'trips', 'overspeedCount', kmColumn('maxSpeedKmh'), gradeColumn(t)],
      filters: ['enterpriseId', 'carId', 'month'],
      initialFilters: { month: lastMonths() },
      requiredFilters: ['month'],
      chart: (view) => <ChartPanel view={view} load={load} />,
    });
  }, [t]);
  return <ListPage screen={screen} />;
}
