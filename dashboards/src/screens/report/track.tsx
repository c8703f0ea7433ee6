import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';
import { initialFilters, useCarIdParam } from '../../features/log/logScreens';
import StatusText from '../../features/log/StatusText';
import ChartPanel, { type ChartLoader } from '../../features/report/charts/ChartPanel';
import { rowsFor } from '../../features/report/charts/loaders';
import { trendOption } from '../../features/report/charts/options';
import { REPORT_FEATURES } from '../../features/report/reportScreen';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'gpsLog';

/** Platform-spec §2 report track: one vehicle's positions in a time range (gps, oldest first) with speed and
 * mileage over time, exported whole. */
export default function TrackReportScreen() {
  const { t } = useTranslation('report');
  const carId = useCarIdParam();
  const screen = useMemo(() => {
    const load: ChartLoader = async (view, signal) => {
      const { rows, truncated } = await rowsFor('gpsLog', view, ['time', 'speed', 'mileage'], signal, 5000);
      const times = rows.map((r) => String(r.time ?? '').slice(11, 19));
      return [{ key: 'speed', title: truncated ? t('chart.speedFirst', { count: rows.length }) : t('chart.speedOverTime'), span: 24, points: rows.length,
        option: trendOption({ categories: times, units: [t('unit.kmh'), t('unit.km')], zoomAbove: 200, series: [
          { name: t('fields.speed'), type: 'line', data: rows.map((r) => Number(r.speed) || 0), area: true },
          { name: t('fields.mileage'), type: 'line', yAxisIndex: 1, data: rows.map((r) => (r.mileage === null ? null : Number(r.mileage))) },
        ] }) }];
    };
    return defineListScreen({
      entity: ENTITY,
      namespace: 'log:gps',
      columns: ['time', 'plateNumber', 'lng', 'lat', 'speed', 'direction', 'altitude', 'mileage', 'acc', 'alarm',
        { field: 'state', render: (value) => <StatusText bits={value} /> }],
      filters: ['carId', 'time'],
      requiredFilters: ['carId', 'time'],
      initialFilters: initialFilters(carId, 'time'),
      features: REPORT_FEATURES,
      chart: (view) => <ChartPanel view={view} load={load} />,
    });
  }, [t, carId]);
  return <ListPage key={carId ?? 'none'} screen={screen} />;
}
