import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

export const ENTITY = 'announcement';

/** Settings "notify" (platform-spec §2; the bell's bizType 5): an administrator publishes a title and a text to
 * an enterprise and its whole subtree (the audience, inside the publisher's tree); each user of it finds the
 * announcement in the bell until read. */
const screen = defineListScreen({
  entity: ENTITY,
  namespace: 'settings:announcement',
  columns: ['title', 'enterpriseId', 'publishedBy', 'createTime'],
  filters: ['title', 'enterpriseId'],
  form: ['enterpriseId', 'title', 'content'],
  features: { import: false, export: false },
});

export default function AnnouncementScreen() {
  return <ListPage screen={screen} />;
}
