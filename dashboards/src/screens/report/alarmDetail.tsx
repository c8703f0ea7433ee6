import { Alert } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import AlarmEvents from '../../features/report/AlarmEvents';
import { parseAlarmDrill, type AlarmKind } from '../../features/report/alarmDrill';
import { alarmName } from '../../features/report/charts/loaders';
import { cells } from '../../features/report/reportScreen';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'alarm';

/** Platform-spec §2 detail page report/alarm: the alarms behind a report's count cell (`?deviceId=` or
 * `?enterpriseId=`, `?startDate=&endDate=` yyyymmdd, `?kind=`; features/report/alarmDrill.ts). The rows are
 * the caller's tree's only: another enterprise's terminal lists nothing (the alarm query's tenant scope). */
export default function AlarmReportDetailScreen() {
  const { t } = useTranslation('report');
  const [params] = useSearchParams();
  const drill = useMemo(() => parseAlarmDrill(params), [params]);
  if (!drill) return <Alert type="warning" showIcon message={t('alarmDetail.invalid')} data-testid="report-alarm-invalid" />;
  const { cell } = drill;
  const kindName = (kind: AlarmKind) => (typeof kind === 'string' ? t(`fields.${kind}`) : alarmName(t, kind.key));
  const days = cell.startDate === cell.endDate ? cells.day(cell.startDate)
    : `${cells.day(cell.startDate)} – ${cells.day(cell.endDate)}`;
  return (
    <AlarmEvents key={params.toString()} query={drill.query} range={drill.range} title={`${kindName(cell.kind)} · ${days}`}
      name="alarmDetail" exportAsShown />
  );
}
