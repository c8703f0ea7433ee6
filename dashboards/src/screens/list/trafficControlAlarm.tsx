import AlarmListScreen from '../../features/alarmList/AlarmListScreen';

export const ENTITY = 'alarm';

// Traffic control alarms in this product: the platform's time-restriction rule, night driving (p_night,
// streams/platform_alarms.py); the report of the same rows is screens/report/trafficControlAlarm.tsx.
const QUERY = { 'key.eq': 'p_night' };

/** Platform-spec §2 list "trafficControlAlarm": the traffic-control alarms on the alarm list (entity `alarm` with
 * its condition), with the place, handling and the alarm's detail, features/alarmList/AlarmListScreen. */
export default function TrafficControlAlarmList() {
  return <AlarmListScreen entity={ENTITY} query={QUERY} name="trafficControlAlarm" />;
}
