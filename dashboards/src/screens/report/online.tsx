import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import { daysBetween, round } from '../../features/report/aggregate';
import { rangeOf } from '../../features/report/api';
import ChartPanel, { type ChartLoader } from '../../features/report/charts/ChartPanel';
import { rowsFor } from '../../features/report/charts/loaders';
import { dayLabels, trendOption } from '../../features/report/charts/options';
import { dayColumn, durationColumn, lastDays, reportScreen } from '../../features/report/reportScreen';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'carDayReport';

/** Platform-spec §2 report online: per vehicle and day its online time, sessions, first online and last
 * offline, and whether it came online (上线); the chart: vehicles online and the online rate per day, from
 * the enterprises' KPI days (kpiEnterpriseDay: online vehicles of the joined ones). The export carries the
 * table's columns as shown (durations h:mm:ss, 上线 as its label). */
export default function OnlineScreen() {
  const { t } = useTranslation('report');
  const screen = useMemo(() => {
    const load: ChartLoader = async (view, signal) => {
      const { startDate, endDate } = rangeOf(view.body);
      if (!startDate || !endDate) return [];
      const days = daysBetween(startDate, endDate);
      const scope = Object.fromEntries(Object.entries(view.body).filter(([k]) => k.startsWith('enterpriseId') || k.startsWith('date')));
      const { rows } = await rowsFor('kpiEnterpriseDay', { ...view, body: scope }, ['date', 'onlineVehicles', 'joinedVehicles'], signal);
      const online = days.map((d) => rows.filter((r) => r.date === d).reduce((n, r) => n + Number(r.onlineVehicles ?? 0), 0));
      const joined = days.map((d) => rows.filter((r) => r.date === d).reduce((n, r) => n + Number(r.joinedVehicles ?? 0), 0));
      return [{ key: 'online', title: t('chart.onlinePerDay'), span: 24, points: rows.length, option: trendOption({
        categories: dayLabels(days), units: [t('unit.vehicles'), '%'], zoomAbove: 31, series: [
          { name: t('fields.onlineVehicles'), data: online },
          { name: t('fields.onlineRate'), type: 'line', yAxisIndex: 1, data: online.map((n, i) => (joined[i] ? round((n / joined[i]) * 100, 1) : null)) },
        ] }) }];
    };
    return reportScreen({
      entity: ENTITY,
      namespace: 'report',
      columns: [dayColumn, 'plateNumber', 'online', durationColumn('onlineS'), durationColumn('offlineS'), 'onlineSessions',
        'firstOnlineAt', 'lastOfflineAt', 'points', 'lastFixAt'],
      filters: ['enterpriseId', 'carId', 'date', 'online'],
      initialFilters: { date: lastDays() },
      requiredFilters: ['date'],
      chart: (view) => <ChartPanel view={view} load={load} />,
    });
  }, [t]);
  return <ListPage screen={screen} />;
}
