/**
 * Alarm events as a report (alarmOverview's detail, inOutAlarm, trafficControlAlarm): the alarms of the
 * caller's tree matching a fixed condition (a key, keys), filters vehicle and start time, export, the
 * alarm's detail and its track.
 */
import { Typography } from 'antd';
import type { Dayjs } from 'dayjs';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { detailHref, trackHref } from '../alarmList/model';
import ListPage from '../list/ListPage';
import { defineListScreen } from '../list/types';
import { lastDays, REPORT_FEATURES, REPORT_PARAMS, clock } from './reportScreen';

interface Props {
  query: Record<string, unknown>;
  /** The start-time range the list opens with (default: the last 7 days). */
  range?: readonly [Dayjs, Dayjs];
  title?: string;
  name: string;
  /** The entity listed (default `alarm`; inOutAlarm has its own, with the fence of each row). */
  entity?: string;
  /** Columns shown after the alarm's description (the inOutAlarm screens' fence and source). */
  extraColumns?: string[];
  /** The file is the table as shown (titles and cells in the user's language, reportScreen's rule) instead of the
   * server's file of the entity's labels: the report/alarm detail, whose rows an analyst sets beside the report's. */
  exportAsShown?: boolean;
}

function seconds(record: Record<string, unknown>): number | null {
  if (!record.startTime || !record.endTime) return null;
  return (new Date(String(record.endTime)).getTime() - new Date(String(record.startTime)).getTime()) / 1000;
}

export default function AlarmEvents({ query, range, title, name, entity = 'alarm', extraColumns = [], exportAsShown = false }: Props) {
  const { t } = useTranslation(['report', 'alarmList']);
  const screen = useMemo(() => {
    const [start, end] = range ?? lastDays();
    return defineListScreen({
      entity,
      namespace: 'alarmList',
      permission: 'alarm',
      params: REPORT_PARAMS,
      features: REPORT_FEATURES,
      query,
      columns: ['plateNumber', { field: 'desc', render: (value, record) => String(value ?? record.key ?? '') }, ...extraColumns, 'startTime', 'endTime',
        { key: 'duration', title: t('report:fields.durationS'), render: (_v, r) => clock(seconds(r)) },
        'speed', 'driverName', 'address', 'state'],
      filters: ['plateNumber', 'startTime'],
      initialFilters: { startTime: [start.startOf('day'), end.endOf('day')] },
      detail: (record) => detailHref('alarmDetail', record),
      rowActions: [{ key: 'track', label: t('alarmList:actions.track'), visible: (r) => trackHref(r) !== null, href: (r) => trackHref(r) ?? '' }],
      exportName: name,
      exportAsShown,
    });
  }, [query, range, t, name, entity, extraColumns, exportAsShown]);
  return (
    <>
      {title ? <Typography.Title level={5} data-testid="report-alarm-title">{title}</Typography.Title> : null}
      <ListPage screen={screen} />
    </>
  );
}
