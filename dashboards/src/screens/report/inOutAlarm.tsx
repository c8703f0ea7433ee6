import AlarmEvents from '../../features/report/AlarmEvents';

const QUERY = { 'key.in': ['a20', 'a21'] };

/** Report inOutAlarm (not defined by the spec; docs/reports.md §4): every area / route in-out alarm
 * (JT/T 808 bits 20 进出区域 and 21 进出路线, with their 0x12 position item) with its time, place, speed and how
 * long it lasted. */
export default function InOutAlarmScreen() {
  return <AlarmEvents query={QUERY} name="inOutAlarm" />;
}
