import dayjs from 'dayjs';
import { useState } from 'react';
import AlarmEvents from '../../features/report/AlarmEvents';

export const ENTITY = 'inOutAlarm';

const QUERY = {};
const FENCE_COLUMNS = ['fenceName', 'source'];

/** Platform-spec §2 list "inOutAlarm": the area / route in-out alarms of terminals and platform fences with the
 * fence's name (entity `inOutAlarm`), the report's rows with the alarm's detail and track. */
export default function InOutAlarmList() {
  // A list of alarms opens on the last 7 days including today (a crossing just raised is listed); the report
  // of the same rows keeps the reports' closed days.
  const [range] = useState(() => [dayjs().subtract(6, 'day'), dayjs()] as const);
  return <AlarmEvents entity={ENTITY} query={QUERY} name="inOutAlarm" extraColumns={FENCE_COLUMNS} range={range} />;
}
