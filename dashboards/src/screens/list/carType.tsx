import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

export const ENTITY = 'carType';

/** Platform-spec §2 list "carType": everything from the server's declaration of the entity. */
const screen = defineListScreen({ entity: ENTITY, namespace: 'catalogue:carType' });

export default function CarTypeList() {
  return <ListPage screen={screen} />;
}
