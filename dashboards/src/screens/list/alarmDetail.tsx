import AlarmDetailScreen from '../../features/alarmList/AlarmDetailScreen';

/** An alarm's detail (`?id=`), opened from the alarm lists. */
export default function AlarmDetailPage() {
  return <AlarmDetailScreen back="alarm" />;
}
