import AlarmListScreen from '../../features/alarmList/AlarmListScreen';

/** Alarm management: every alarm of the enterprise and its subsidiaries (platform-spec §2), features/alarmList/AlarmListScreen. */
export default function AlarmScreen() {
  return <AlarmListScreen entity="alarm" />;
}
