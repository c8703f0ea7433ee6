import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import type { ListRecord } from '../../features/list/types';
import { alarmCountColumn } from '../../features/report/AlarmCountCell';
import type { AlarmKind } from '../../features/report/alarmDrill';
import { alarmKeys, breakdown, keyOptions } from '../../features/report/alarmKeys';
import ChartPanel from '../../features/report/charts/ChartPanel';
import { alarmCountersLoader } from '../../features/report/charts/loaders';
import { dayColumn, durationColumn, lastDays, reportScreen } from '../../features/report/reportScreen';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'deviceDayReport';

/** A count cell of a terminal's day: its alarms of the column's kind that day (platform-spec §2 report/alarm detail). */
const terminalDay = (kind: AlarmKind) => (record: ListRecord) => ({
  deviceId: Number(record.deviceId), startDate: Number(record.date), endDate: Number(record.date), kind,
});

/** Platform-spec §2 report alarm: per terminal and day its alarms (device_day_report: one counter per alarm
 * key, the spec's `{alarmType}.gt=0` filter), the non-zero ones spelled out; alarms per day and by type. The alarm and active-safety counts open the alarms
 * behind them (reportAlarmDetail). */
export default function AlarmReportScreen() {
  const { t } = useTranslation('report');
  const screen = useMemo(() => {
    const keys = alarmKeys(t);
    const load = alarmCountersLoader(t, keys);
    return reportScreen({
      entity: ENTITY,
      namespace: 'report',
      columns: [dayColumn, 'plateNumber', alarmCountColumn('alarmTotal', terminalDay('alarmTotal')), durationColumn('alarmS'),
        alarmCountColumn('activeSafety', terminalDay('activeSafety')), 'handled', 'unhandled',
        { key: 'breakdown', title: t('fields.breakdown'), render: (_v, record) => breakdown(t, record, keys) }],
      filters: ['enterpriseId', 'carId', 'date', 'alarmType'],
      filterKinds: { alarmType: { kind: 'positive', options: keyOptions(t, keys) } },
      query: { 'alarmTotal.gt': 0 },
      initialFilters: { date: lastDays() },
      requiredFilters: ['date'],
      chart: (view) => <ChartPanel view={view} load={load} />,
    });
  }, [t]);
  return <ListPage screen={screen} />;
}
