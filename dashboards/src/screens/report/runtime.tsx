import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import ChartPanel from '../../features/report/charts/ChartPanel';
import { daySumsLoader } from '../../features/report/charts/loaders';
import { dayColumn, durationColumn, enumColumn, lastDays, reportScreen } from '../../features/report/reportScreen';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'carDayReport';

const toHours = (s: number) => s / 3600;

/** Platform-spec §2 report runtime: per vehicle and day the time ACC on, driving, idling, engine off, without
 * signal and offline, first ignition and last switch-off; the chart stacks the fleet's hours per state and day. */
export default function RuntimeScreen() {
  const { t } = useTranslation('report');
  const screen = useMemo(() => {
    const states = ['driveS', 'idleS', 'engineOffS', 'noSignalS', 'offlineS'];
    const load = daySumsLoader([{ key: 'states', title: t('chart.hoursPerState'), span: 24, units: [t('unit.hours')],
      series: states.map((field) => ({ field, name: t(`fields.${field}`), stack: 'state', value: toHours })) }]);
    return reportScreen({
      entity: ENTITY,
      namespace: 'report',
      columns: [dayColumn, 'plateNumber', durationColumn('accOnS'), durationColumn('driveS'), durationColumn('idleS'),
        durationColumn('engineOffS'), durationColumn('noSignalS'), durationColumn('offlineS'), 'firstAccOnAt', 'lastAccOffAt',
        enumColumn('runtimeSource', t)],
      filters: ['enterpriseId', 'carId', 'date'],
      initialFilters: { date: lastDays() },
      requiredFilters: ['date'],
      chart: (view) => <ChartPanel view={view} load={load} />,
    });
  }, [t]);
  return <ListPage screen={screen} />;
}
