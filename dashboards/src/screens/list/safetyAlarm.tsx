import AlarmListScreen from '../../features/alarmList/AlarmListScreen';

export const ENTITY = 'safetyAlarm';

/** Safety alarms: active-safety alarms, types 5-8 (platform-spec §2), features/alarmList/AlarmListScreen. */
export default function SafetyAlarmScreen() {
  return <AlarmListScreen entity={ENTITY} />;
}
