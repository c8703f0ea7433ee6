import AlarmEvents from '../../features/report/AlarmEvents';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'alarm';

const QUERY = { 'key.eq': 'p_night' };

/** Report trafficControlAlarm (not defined by the spec; docs/reports.md §4): violations of a time
 * restriction raised by the platform's rules (夜间行驶报警 p_night: passenger coaches running 02:00-05:00),
 * with start, end, duration and place. */
export default function TrafficControlAlarmScreen() {
  return <AlarmEvents query={QUERY} name="trafficControlAlarm" />;
}
