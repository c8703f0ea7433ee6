import AlarmListScreen from '../../features/alarmList/AlarmListScreen';

export const ENTITY = 'alarm';

/** Alarm management: every alarm of the enterprise and its subsidiaries (platform-spec §2), features/alarmList/AlarmListScreen. */
export default function AlarmScreen() {
  return <AlarmListScreen entity={ENTITY} />;
}
