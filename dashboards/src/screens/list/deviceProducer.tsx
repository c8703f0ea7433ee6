import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

export const ENTITY = 'deviceProducer';

/** Platform-spec §2 list "deviceProducer": everything from the server's declaration of the entity. */
const screen = defineListScreen({ entity: ENTITY, namespace: 'catalogue:deviceProducer' });

export default function DeviceProducerList() {
  return <ListPage screen={screen} />;
}
