import AlarmListScreen from '../../features/alarmList/AlarmListScreen';

export const ENTITY = 'myAlarm';

/** My alarms: the caller's own enterprise, unhandled first (platform-spec §2), features/alarmList/AlarmListScreen. */
export default function MyAlarmScreen() {
  return <AlarmListScreen entity={ENTITY} />;
}
