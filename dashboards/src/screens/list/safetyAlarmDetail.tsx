import AlarmDetailScreen from '../../features/alarmList/AlarmDetailScreen';

/** An active-safety alarm's detail (`?id=`), the alarm detail opened from the safety alarm list. */
export default function SafetyAlarmDetailPage() {
  return <AlarmDetailScreen back="safetyAlarm" />;
}
