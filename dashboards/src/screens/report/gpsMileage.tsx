import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import { percent } from '../../features/report/aggregate';
import ChartPanel from '../../features/report/charts/ChartPanel';
import { daySumsLoader } from '../../features/report/charts/loaders';
import { dayColumn, enumColumn, km, kmColumn, lastDays, reportScreen } from '../../features/report/reportScreen';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'carDayReport';

/** Platform-spec §2 report gpsMileage: per vehicle and day the odometer (0x01) and GPS mileage side by
 * side, their difference, which one the day's mileage took, and the drift points and gaps behind it. */
export default function GpsMileageScreen() {
  const { t } = useTranslation('report');
  const screen = useMemo(() => {
    const load = daySumsLoader([{ key: 'odoGps', title: t('chart.odoVsGps'), span: 24, units: [t('unit.km')], series: [
      { field: 'odoKm', name: t('fields.odoKm') },
      { field: 'gpsKm', name: t('fields.gpsKm') },
      { field: 'incompleteKm', name: t('fields.incompleteKm'), type: 'line' },
    ] }]);
    return reportScreen({
      entity: ENTITY,
      namespace: 'report',
      columns: [dayColumn, 'plateNumber', kmColumn('odoKm'), kmColumn('gpsKm'),
        { key: 'diffKm', title: t('fields.diffKm'), render: (_v, r) => (r.odoKm === null || r.gpsKm === null ? '' : km(Number(r.odoKm) - Number(r.gpsKm))) },
        { key: 'diffPercent', title: t('fields.diffPercent'), render: (_v, r) => {
          const share = percent(Number(r.odoKm) - Number(r.gpsKm), Number(r.gpsKm));
          return share === null ? '' : `${share}%`;
        } },
        enumColumn('mileageSource', t), kmColumn('mileageKm'), 'driftPoints', 'gapCount', kmColumn('incompleteKm'), 'points'],
      filters: ['enterpriseId', 'carId', 'date', 'mileageSource'],
      filterKinds: { mileageSource: { kind: 'choice', options: [1, 2].map((value) => ({ value, label: t(`enums.mileageSource.${value}`) })) } },
      initialFilters: { date: lastDays() },
      requiredFilters: ['date'],
      chart: (view) => <ChartPanel view={view} load={load} />,
    });
  }, [t]);
  return <ListPage screen={screen} />;
}
