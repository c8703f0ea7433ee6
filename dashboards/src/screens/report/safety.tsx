import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import type { ListRecord } from '../../features/list/types';
import { counterStats, groupRows, percent, perDay, topN } from '../../features/report/aggregate';
import { alarmKeys, isSafetyKey } from '../../features/report/alarmKeys';
import ChartPanel, { type ChartLoader } from '../../features/report/charts/ChartPanel';
import { alarmName, daysOf, familyOf, familyShare, rowsFor, SAFETY_FAMILIES } from '../../features/report/charts/loaders';
import { dayLabels, rankingOption, trendOption } from '../../features/report/charts/options';
import { gradeColumn } from '../../features/report/GradeCell';
import { dayColumn, lastDays, reportScreen } from '../../features/report/reportScreen';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'deviceDayReport';

const familyTotal = (record: ListRecord, keys: readonly string[], family: string) =>
  keys.filter((k) => familyOf(k) === family).reduce((n, k) => n + (Number(record[k]) || 0), 0);

/** Platform-spec §2 report safety: per vehicle and day its active-safety alarms by family (ADAS, DSM, BSD,
 * TPMS), overspeed and fatigue alarms, handled and unhandled, the handling rate; the families' shares, the
 * vehicles with most active-safety alarms and the alarms per day; the vehicle's driving-behaviour score and grade
 * (the deductions on hover, drivingGradeRule). */
export default function SafetyScreen() {
  const { t } = useTranslation('report');
  const screen = useMemo(() => {
    const keys = alarmKeys(t).filter(isSafetyKey);
    const load: ChartLoader = async (view, signal) => {
      const days = daysOf(view);
      if (!days.length) return [];
      const { rows } = await rowsFor('deviceDayReport', view, ['date', 'carId', 'plateNumber', 'activeSafety', ...keys], signal);
      const share = familyShare(t, rows, keys);
      const ranking = topN(groupRows(rows, 'carId', ['activeSafety']).map((g) => ({ name: String(g.first.plateNumber ?? g.key), value: g.sums.activeSafety }))
        .filter((i) => i.value > 0), 10);
      const stats = counterStats(rows, keys);
      return [
        { key: 'families', title: t('chart.families'), points: share.points, option: share.option, span: 8 },
        { key: 'ranking', title: t('chart.riskRanking'), points: ranking.length, option: rankingOption(ranking, t('chart.alarms'), { colour: '#f5222f' }), span: 8 },
        { key: 'trend', title: t('chart.safetyPerDay'), points: stats.length, span: 8, option: trendOption({ categories: dayLabels(days),
          series: SAFETY_FAMILIES.map((f) => ({ name: t(`family.${f}`), stack: 'f', data: perDay(rows.map((r) => ({ date: r.date, n: familyTotal(r, keys, f) })), days, 'n') })) }) },
      ];
    };
    return reportScreen({
      entity: ENTITY,
      namespace: 'report',
      columns: [dayColumn, 'plateNumber', 'activeSafety',
        ...SAFETY_FAMILIES.map((f) => ({ key: f, title: t(`family.${f}`), render: (_v: unknown, r: ListRecord) => familyTotal(r, keys, f) })),
        ...['a1', 'a2', 'p_overspeed', 'p_fatigue'].map((key) => ({ field: key, title: alarmName(t, key) })), 'handled', 'unhandled',
        { key: 'handlingRate', title: t('fields.handlingRate'), render: (_v, r) => {
          const rate = percent(Number(r.handled) || 0, (Number(r.handled) || 0) + (Number(r.unhandled) || 0));
          return rate === null ? '' : `${rate}%`;
        } }, gradeColumn(t)],
      filters: ['enterpriseId', 'carId', 'date'],
      initialFilters: { date: lastDays() },
      requiredFilters: ['date'],
      chart: (view) => <ChartPanel view={view} load={load} />,
    });
  }, [t]);
  return <ListPage screen={screen} />;
}
