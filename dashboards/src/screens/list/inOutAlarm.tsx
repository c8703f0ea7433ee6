import AlarmEvents from '../../features/report/AlarmEvents';

const QUERY = {};
const FENCE_COLUMNS = ['fenceName', 'source'];

/** Platform-spec §2 list "inOutAlarm": the area / route in-out alarms of terminals and platform fences with the
 * fence's name (entity `inOutAlarm`), the report's rows with the alarm's detail and track. */
export default function InOutAlarmList() {
  return <AlarmEvents entity="inOutAlarm" query={QUERY} name="inOutAlarm" extraColumns={FENCE_COLUMNS} />;
}
