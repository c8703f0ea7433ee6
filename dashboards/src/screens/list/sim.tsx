import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

export const ENTITY = 'sim';

/** Platform-spec §2 list "sim": SIM cards, each in at most one terminal. */
const screen = defineListScreen({
  entity: ENTITY,
  namespace: 'fleet:sim',
  columns: ['iccid', 'msisdn', 'operator', 'devicePhone', 'state', 'expireDate', 'createTime'],
  filters: ['iccid', 'msisdn', 'operator', 'state'],
  form: ['iccid', 'msisdn', 'operator', 'deviceId', 'state', 'expireDate'],
});

export default function SimList() {
  return <ListPage screen={screen} />;
}
