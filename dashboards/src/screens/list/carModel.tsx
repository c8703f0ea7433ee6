import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

export const ENTITY = 'carModel';

/** Platform-spec §2 list "carModel": everything from the server's declaration of the entity. */
const screen = defineListScreen({ entity: ENTITY, namespace: 'catalogue:carModel' });

export default function CarModelList() {
  return <ListPage screen={screen} />;
}
