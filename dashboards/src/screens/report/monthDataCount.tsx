import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import type { ColumnDecl } from '../../features/list/types';
import ChartPanel from '../../features/report/charts/ChartPanel';
import { monthSumsLoader } from '../../features/report/charts/loaders';
import { lastMonths, monthColumn, reportScreen } from '../../features/report/reportScreen';
import { monthDataCountSource } from '../../features/report/sources';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'carMonthReport';

const DAY_COLUMNS: ColumnDecl[] = Array.from({ length: 31 }, (_, i) => {
  const key = `d${String(i + 1).padStart(2, '0')}`;
  return { key, title: String(i + 1), width: 56, render: (_v, r) => (r[key] === null || r[key] === undefined ? '' : Number(r[key])) };
});

/** Platform-spec §2 report monthDataCount: per vehicle and month its positions on each day (d01..d31, from
 * the day rows), the month's total, refused positions and days with data; positions per month. */
export default function MonthDataCountScreen() {
  const { t } = useTranslation('report');
  const screen = useMemo(() => {
    const load = monthSumsLoader({ key: 'points', title: t('chart.pointsPerMonth'), units: [t('unit.points')], series: [
      { field: 'points', name: t('fields.points') },
      { field: 'rejectedPoints', name: t('fields.rejectedPoints'), type: 'line' },
    ] });
    return reportScreen({
      entity: ENTITY,
      namespace: 'report',
      columns: [monthColumn, 'plateNumber', 'points', 'rejectedPoints', 'days', ...DAY_COLUMNS],
      filters: ['enterpriseId', 'carId', 'month'],
      initialFilters: { month: lastMonths(1) },
      requiredFilters: ['month'],
      fetchPage: monthDataCountSource(),
      rowKey: (r) => `${String(r.carId)}-${String(r.month)}`,
      exportName: 'monthDataCount',
      chart: (view) => <ChartPanel view={view} load={load} />,
    });
  }, [t]);
  return <ListPage screen={screen} />;
}
