import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import type { ListRecord } from '../../features/list/types';
import { counterStats, perDay, topN } from '../../features/report/aggregate';
import { alarmKeys, isDsmKey, keyOptions } from '../../features/report/alarmKeys';
import ChartPanel, { type ChartLoader } from '../../features/report/charts/ChartPanel';
import { alarmName, daysOf, rowsFor } from '../../features/report/charts/loaders';
import { dayLabels, shareOption, trendOption } from '../../features/report/charts/options';
import { dayColumn, lastDays, reportScreen } from '../../features/report/reportScreen';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'deviceDayReport';

const dsmTotal = (record: ListRecord, keys: readonly string[]) => keys.reduce((n, k) => n + (Number(record[k]) || 0), 0);

/** Report dsm1 (not defined by the spec; docs/reports.md §4): driver-state monitoring alarms (DSM,
 * 0x65: fatigue, phone, smoking, distraction, driver abnormal, captures) per vehicle and day; their shares
 * and the DSM alarms per day. */
export default function Dsm1Screen() {
  const { t } = useTranslation('report');
  const screen = useMemo(() => {
    const keys = alarmKeys(t).filter(isDsmKey);
    const load: ChartLoader = async (view, signal) => {
      const days = daysOf(view);
      if (!days.length) return [];
      const { rows } = await rowsFor('deviceDayReport', view, ['date', 'carId', ...keys], signal);
      const shares = topN(counterStats(rows, keys).map((s) => ({ name: alarmName(t, s.key), value: s.count })), 10);
      return [
        { key: 'types', title: t('chart.typeShare'), points: shares.length, option: shareOption(shares, t('chart.alarms')) },
        { key: 'trend', title: t('chart.dsmPerDay'), points: rows.length, option: trendOption({ categories: dayLabels(days),
          series: [{ name: t('chart.alarms'), data: perDay(rows.map((r) => ({ date: r.date, n: dsmTotal(r, keys) })), days, 'n'), colour: '#722ed1' }] }) },
      ];
    };
    return reportScreen({
      entity: ENTITY,
      namespace: 'report',
      columns: [dayColumn, 'plateNumber', { key: 'dsmTotal', title: t('fields.dsmTotal'), render: (_v, r) => dsmTotal(r, keys) },
        ...keys.map((key) => ({ field: key, title: alarmName(t, key) })), 'handled', 'unhandled'],
      filters: ['enterpriseId', 'carId', 'date', 'alarmType'],
      filterKinds: { alarmType: { kind: 'positive', options: keyOptions(t, keys) } },
      query: { 'activeSafety.gt': 0 },
      initialFilters: { date: lastDays() },
      requiredFilters: ['date'],
      chart: (view) => <ChartPanel view={view} load={load} />,
    });
  }, [t]);
  return <ListPage screen={screen} />;
}
