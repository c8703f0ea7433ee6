import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ChartPanel from '../../features/report/charts/ChartPanel';
import { daySumsLoader } from '../../features/report/charts/loaders';
import ListPage from '../../features/list/ListPage';
import { dayColumn, durationColumn, enumColumn, kmColumn, lastDays, reportScreen } from '../../features/report/reportScreen';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'carDayReport';

/** Platform-spec §2 report dailyMileage: each vehicle's mileage per day (car_day_report), the fleet's
 * mileage per day and the vehicles that drove most over the chosen days. */
export default function DailyMileageScreen() {
  const { t } = useTranslation('report');
  const screen = useMemo(() => {
    const load = daySumsLoader(
      [{ key: 'mileage', title: t('chart.mileagePerDay'), units: [t('unit.km'), t('unit.hours')], series: [
        { field: 'mileageKm', name: t('fields.mileageKm') },
        { field: 'driveS', name: t('chart.driveHours'), type: 'line', yAxisIndex: 1, value: (s) => s / 3600 },
      ] }],
      [{ key: 'top', title: t('chart.topMileage'), field: 'mileageKm', unit: t('unit.km') }],
    );
    return reportScreen({
      entity: ENTITY,
      namespace: 'report',
      columns: [dayColumn, 'plateNumber', kmColumn('mileageKm'), enumColumn('mileageSource', t), kmColumn('odoStartKm'),
        kmColumn('odoEndKm'), durationColumn('driveS'), 'trips', kmColumn('maxSpeedKmh'), kmColumn('avgSpeedKmh'), 'active'],
      filters: ['enterpriseId', 'carId', 'date'],
      initialFilters: { date: lastDays() },
      requiredFilters: ['date'],
      chart: (view) => <ChartPanel view={view} load={load} />,
    });
  }, [t]);
  return <ListPage screen={screen} />;
}
