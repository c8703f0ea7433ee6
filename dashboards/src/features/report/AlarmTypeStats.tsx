/**
 * Alarm statistics per alarm type over the chosen days (alarmOverview, a1Alarm): per key of the device day
 * rows (one counter column per alarm key), the alarms, the vehicles that raised it and the vehicle-days;
 * a drill-down to the alarms themselves (alarmOverviewDetail). Summed here over every matching day row.
 */
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../list/ListPage';
import { alarmStats } from './alarmStats';
import ChartPanel from './charts/ChartPanel';
import { lastDays, reportScreen } from './reportScreen';

interface Props {
  /** The alarm keys counted (every key, or the active-safety ones). */
  keys: string[];
  /** Ring of the active-safety families instead of the top types. */
  families?: boolean;
  name: string;
}

export default function AlarmTypeStats({ keys, families = false, name }: Props) {
  const { t } = useTranslation('report');
  const screen = useMemo(() => {
    const { source, load } = alarmStats(t, keys, families);
    return reportScreen({
      entity: 'deviceDayReport',
      namespace: 'report',
      columns: [
        { key: 'name', title: t('fields.alarmType'), render: (_v, r) => String(r.name) },
        { key: 'count', title: t('fields.alarms'), render: (_v, r) => Number(r.count) },
        { key: 'vehicles', title: t('fields.vehicles'), render: (_v, r) => Number(r.vehicles) },
        { key: 'days', title: t('fields.vehicleDays'), render: (_v, r) => Number(r.days) },
        { key: 'share', title: t('fields.share'), render: (_v, r) => (r.share === null ? '' : `${String(r.share)}%`) },
      ],
      filters: ['enterpriseId', 'carId', 'date'],
      initialFilters: { date: lastDays() },
      requiredFilters: ['date'],
      fetchPage: source,
      rowKey: (r) => String(r.key),
      rowActions: [{ key: 'detail', label: t('actions.alarms'), href: (r) => String(r.detail) }],
      exportName: name,
      chart: (view) => <ChartPanel view={view} load={load} />,
    });
  }, [t, keys, families, name]);
  return <ListPage screen={screen} />;
}
