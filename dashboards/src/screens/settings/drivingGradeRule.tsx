import GradeBandsCard from '../../features/gradeBands/GradeBandsCard';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

export const ENTITY = 'drivingGradeRule';

/** Platform-spec §2 settings "drivingGradeRule": the points each alarm type deducts from the daily
 * driving-behaviour score of a vehicle and a driver (per occurrence, per minute, a cap, per 100 km or per
 * hour of driving); a subsidiary without its own rule of a type follows its parent's. Above the rules, the
 * grades the score earns (the enterprise's grade bands, dictionary type 50 of platform-spec §9). */
const screen = defineListScreen({
  entity: ENTITY,
  namespace: 'alarmSettings',
  columns: ['name', 'alarmKey', 'perOccurrence', 'perMinute', 'cap', 'normalisation', 'remark', 'updateTime'],
  filters: ['name', 'alarmKey', 'normalisation'],
  form: ['name', 'alarmKey', 'perOccurrence', 'perMinute', 'cap', 'normalisation', 'remark'],
  chart: () => <GradeBandsCard />,
});

export default function DrivingGradeRuleList() {
  return <ListPage screen={screen} />;
}
