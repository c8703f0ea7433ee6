import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

export const ENTITY = 'alarmLevel';

/** Platform-spec §2 settings "alarmLevel": the level the enterprise gives each alarm type. */
const screen = defineListScreen({
  entity: ENTITY,
  namespace: 'alarmSettings',
  columns: ['name', 'alarmKey', 'level', 'remark', 'updateTime'],
  filters: ['name', 'alarmKey', 'level'],
  form: ['name', 'alarmKey', 'level', 'remark'],
});

export default function AlarmLevelList() {
  return <ListPage screen={screen} />;
}
