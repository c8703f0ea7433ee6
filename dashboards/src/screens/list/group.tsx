import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

export const ENTITY = 'group';

/** Vehicle groups (fleets) of an enterprise (platform-spec §3 group): name, type, parent group. */
const screen = defineListScreen({
  entity: ENTITY,
  namespace: 'fleet:group',
  columns: ['name', 'type', 'parentId', 'createTime'],
  filters: ['name', 'type', 'parentId'],
  form: ['name', 'type', 'parentId'],
});

export default function GroupList() {
  return <ListPage screen={screen} />;
}
