import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import { enumColumn, lastDays, reportScreen } from '../../features/report/reportScreen';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'driverAttendance';

/** Platform-spec §2 log driverAttendance: drivers' IC-card sign-ins and sign-outs (0x0702, driver_event) with
 * the vehicle, the card's name, qualification and the matched driver; newest first, the last 7 days. */
export default function DriverAttendanceScreen() {
  const { t } = useTranslation('report');
  const screen = useMemo(() => {
    const [start, end] = lastDays(7);
    return reportScreen({
      entity: ENTITY,
      namespace: 'report:attendance',
      columns: ['at', enumColumn('status', t), 'plateNumber', 'matchedDriverName', 'driverName', 'qualificationNo', 'issuingAuthority',
        'validUntil', enumColumn('icResult', t)],
      filters: ['enterpriseId', 'carId', 'driverId', 'at', 'status'],
      filterKinds: { status: { kind: 'choice', options: [1, 2].map((value) => ({ value, label: t(`enums.status.${value}`) })) } },
      initialFilters: { at: [start.startOf('day'), end.add(1, 'day').endOf('day')] },
    });
  }, [t]);
  return <ListPage screen={screen} />;
}
