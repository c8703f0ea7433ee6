import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import ChartPanel from '../../features/report/charts/ChartPanel';
import { daySumsLoader } from '../../features/report/charts/loaders';
import { durationColumn, kmColumn, lastDays, reportScreen } from '../../features/report/reportScreen';
import { pageSumSource } from '../../features/report/sources';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'carDayReport';

const SUMS = ['mileageKm', 'odoKm', 'gpsKm', 'driveS', 'accOnS', 'trips', 'overspeedCount', 'onlineS'];

/** Platform-spec §2 report mileage: each vehicle's totals over the chosen days (POST
 * /api/report/car/dayReport/page/sum.json grouped by vehicle: mileage, days with data, days driven). */
export default function MileageScreen() {
  const { t } = useTranslation('report');
  const screen = useMemo(() => {
    const load = daySumsLoader([], [
      { key: 'top', title: t('chart.topMileage'), field: 'mileageKm', unit: t('unit.km'), span: 12 },
      { key: 'topDrive', title: t('chart.topDriveHours'), field: 'driveS', value: (s) => s / 3600, unit: t('unit.hours'), span: 12 },
    ]);
    return reportScreen({
      entity: ENTITY,
      namespace: 'report',
      columns: ['plateNumber', kmColumn('mileageKm'), kmColumn('odoKm'), kmColumn('gpsKm'), durationColumn('driveS'),
        durationColumn('accOnS'), 'trips', 'overspeedCount',
        { key: 'days', title: t('fields.days'), render: (_v, r) => String(r.days ?? '') },
        { key: 'activeDays', title: t('fields.activeDays'), render: (_v, r) => String(r.activeDays ?? '') }],
      filters: ['enterpriseId', 'carId', 'date'],
      initialFilters: { date: lastDays() },
      requiredFilters: ['date'],
      fetchPage: pageSumSource('carId', SUMS),
      exportName: 'mileage',
      chart: (view) => <ChartPanel view={view} load={load} />,
    });
  }, [t]);
  return <ListPage screen={screen} />;
}
