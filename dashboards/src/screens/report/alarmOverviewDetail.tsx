import dayjs from 'dayjs';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import AlarmEvents from '../../features/report/AlarmEvents';
import { alarmName } from '../../features/report/charts/loaders';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'alarm';

/** Platform-spec §2 report alarmOverview detail: the alarms of one type (`?key=`) in the days
 * (`?startDate=&endDate=`, yyyymmdd) the overview was looking at. */
export default function AlarmOverviewDetailScreen() {
  const { t } = useTranslation('report');
  const [params] = useSearchParams();
  const key = params.get('key') ?? '';
  const range = useMemo(() => {
    const start = dayjs(params.get('startDate') ?? '', 'YYYYMMDD');
    const end = dayjs(params.get('endDate') ?? '', 'YYYYMMDD');
    return start.isValid() && end.isValid() ? [start.startOf('day'), end.endOf('day')] as const : undefined;
  }, [params]);
  return (
    <AlarmEvents key={`${key}-${params.get('startDate') ?? ''}`} query={key ? { 'key.eq': key } : {}} range={range}
      title={key ? alarmName(t, key) : undefined} name="alarmOverviewDetail" />
  );
}
