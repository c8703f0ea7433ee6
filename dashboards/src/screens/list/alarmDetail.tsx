import AlarmDetailScreen from '../../features/alarmList/AlarmDetailScreen';

/** Issue 9 §4: an alarm's detail (`?id=`), opened from the alarm lists. */
export default function AlarmDetailPage() {
  return <AlarmDetailScreen back="alarm" />;
}
