import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

export const ENTITY = 'deviceType';

/** Platform-spec §2 list "deviceType": everything from the server's declaration of the entity. */
const screen = defineListScreen({ entity: ENTITY, namespace: 'catalogue:deviceType' });

export default function DeviceTypeList() {
  return <ListPage screen={screen} />;
}
