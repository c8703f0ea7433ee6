import { useMemo } from 'react';
import ListPage from '../../features/list/ListPage';
import { ratioText } from '../../features/report/aggregate';
import KpiSummary from '../../features/report/KpiSummary';
import { durationColumn, kmColumn, lastDays, reportScreen } from '../../features/report/reportScreen';
import { kpiSource } from '../../features/report/sources';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'kpiEnterpriseDay';

const RATIOS = ['joinRate', 'onlineRate', 'completenessRate', 'qualificationRate', 'driftRate', 'connectivityRate'];

/** Regulator KPIs (docs/kpi.md): per enterprise over the chosen days 入网率, 上线率, 轨迹完整率,
 * 数据合格率, 漂移率 (平台连通率 empty until data exchange) with their counts, averages of overspeed, fatigue and
 * offline time; the totals and their trend per day above. */
export default function KpiScreen() {
  const screen = useMemo(() => reportScreen({
    entity: ENTITY,
    namespace: 'report',
    columns: ['enterpriseName', ...RATIOS.map((field) => ({ field, render: ratioText })), 'vehicles', 'joinedVehicles', 'onlineVehicles',
      'driftVehicles', 'driftPoints', 'qualifiedPoints', 'totalPoints', kmColumn('totalKm'), kmColumn('completeKm'),
      'overspeedAlarms', kmColumn('avgOverspeed'), durationColumn('avgFatigueS'), durationColumn('avgOfflineS')],
    filters: ['enterpriseId', 'date'],
    initialFilters: { date: lastDays(30) },
    requiredFilters: ['date'],
    fetchPage: kpiSource(),
    rowKey: (r) => String(r.enterpriseId),
    exportName: 'kpi',
    chart: (view) => <KpiSummary view={view} />,
  }), []);
  return <ListPage screen={screen} />;
}
