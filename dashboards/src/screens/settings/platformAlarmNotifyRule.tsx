import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

export const ENTITY = 'platformAlarmNotifyRule';

/** Platform-spec §2 settings "platformAlarmNotifyRule": the enterprise's default notification per
 * alarm type (popup window, voice, daily hours); a user's own rule overrides it. */
const screen = defineListScreen({
  entity: ENTITY,
  namespace: 'alarmSettings',
  columns: ['name', 'alarmKey', 'windowEnable', 'voiceEnable', 'startHour', 'endHour', 'remark', 'updateTime'],
  filters: ['name', 'alarmKey'],
  form: ['name', 'alarmKey', 'windowEnable', 'voiceEnable', 'startHour', 'endHour', 'remark'],
});

export default function PlatformAlarmNotifyRuleList() {
  return <ListPage screen={screen} />;
}
