import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

export const ENTITY = 'platformAlarmRule';

/** Platform-spec §2 settings "platformAlarmRule": the enterprise's platform alarm rules (overspeed,
 * fatigue, parking timeout, night driving). Without a rule the defaults apply (the server fills a new
 * rule's omitted fields with them); the switches are set by editing the rule. */
const screen = defineListScreen({
  entity: ENTITY,
  namespace: 'alarmSettings',
  columns: ['name', 'overspeedEnabled', 'overspeedLimit', 'overspeedDuration', 'fatigueEnabled', 'fatigueDriving', 'fatigueRest',
    'parkingEnabled', 'parkingTimeout', 'nightEnabled', 'nightStartHour', 'nightEndHour', 'updateTime'],
  filters: [],
  form: ['name', 'overspeedEnabled', 'overspeedLimit', 'overspeedDuration', 'fatigueEnabled', 'fatigueDriving', 'fatigueRest',
    'parkingEnabled', 'parkingTimeout', 'nightEnabled', 'nightStartHour', 'nightEndHour', 'remark'],
  features: { import: false },
});

export default function PlatformAlarmRuleList() {
  return <ListPage screen={screen} />;
}
