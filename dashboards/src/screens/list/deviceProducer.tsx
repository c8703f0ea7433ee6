import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

/** Platform-spec §2 list "deviceProducer": everything from the server's declaration of the entity. */
const screen = defineListScreen({ entity: 'deviceProducer', namespace: 'catalogue:deviceProducer' });

export default function DeviceProducerList() {
  return <ListPage screen={screen} />;
}
