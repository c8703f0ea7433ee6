import AlarmEvents from '../../features/report/AlarmEvents';

/** The entity this page lists: its meta is asked for with the page's chunk (router/prefetch.ts). */
export const ENTITY = 'inOutAlarm';

const QUERY = {};
const FENCE_COLUMNS = ['fenceName', 'source'];

/** Report inOutAlarm (docs/reports.md §4): every area / route in-out alarm, the terminal's (bits 20 进出区域 and
 * 21 进出路线, its 0x0200 items 0x11-0x13) and the platform fences' (alarm type 4), with the fence's name, where
 * it came from, its time, place, speed and how long it lasted (entity `inOutAlarm`). */
export default function InOutAlarmScreen() {
  return <AlarmEvents entity={ENTITY} query={QUERY} name="inOutAlarm" extraColumns={FENCE_COLUMNS} />;
}
