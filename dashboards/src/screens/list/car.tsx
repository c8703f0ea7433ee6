import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

/**
 * Platform-spec §2 list "car" (with edit): the vehicles of the caller's subtree. The drawer edits the
 * vehicle's own fields; its devices and master device are on the edit page (`/list/car/edit?id=`).
 * Import takes groupName / masterDevicePhone to name a group and a terminal by their keys.
 */
const screen = defineListScreen({
  entity: 'car',
  namespace: 'fleet:car',
  params: { isParent: true },
  columns: ['plateNumber', 'plateColor', 'vin', 'grade', 'type', 'groupName', 'driverName', 'masterDevicePhone', 'createTime'],
  filters: ['plateNumber', 'vin', 'plateColor', 'groupId'],
  form: ['plateNumber', 'plateColor', 'vin', 'grade', 'type', 'carModelId', 'carTypeId', 'groupId', 'driverId', 'iconId'],
  detail: (record) => `/list/car/edit?id=${String(record.id)}`,
});

export default function CarList() {
  return <ListPage screen={screen} />;
}
