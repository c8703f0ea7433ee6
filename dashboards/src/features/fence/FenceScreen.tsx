/**
 * Platform-spec §2 settings "fence": the fences on the one list framework (filters, paging, delete, import,
 * export from the server's declaration of `fence`), created and edited in a drawer that draws on the map,
 * each fence's bound vehicles and their sync state, and the two route wizards. Every button is behind the
 * `fence` permission code's actions; the server checks them again on every route.
 */
import { Button, Space } from 'antd';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import Access from '../../auth/Access';
import ListPage from '../list/ListPage';
import { defineListScreen, type ListRecord } from '../list/types';
import BindingDrawer from './BindingDrawer';
import FenceDrawer from './FenceDrawer';

const RouteWizard = lazy(() => import('./RouteWizard'));

const COLUMNS = ['name', 'enterpriseName', 'fenceType', 'businessType', 'shape', 'speedLimit', 'bindCount', 'updatedAt'];

export default function FenceScreen() {
  const { t } = useTranslation('fence');
  const [editing, setEditing] = useState<ListRecord | null>(null);
  const [binding, setBinding] = useState<ListRecord | null>(null);
  const [wizard, setWizard] = useState<1 | 2 | null>(null);
  const [version, setVersion] = useState(0);
  const reload = () => setVersion((v) => v + 1);

  const screen = defineListScreen({
    entity: 'fence',
    namespace: 'fence:fence',
    columns: COLUMNS,
    filters: ['name', 'fenceType', 'businessType'],
    features: { create: false, edit: false },
    rowActions: [
      { key: 'fenceEdit', action: 'edit', label: t('fence.edit'), onClick: (record) => setEditing(record) },
      { key: 'bind', action: 'fence', label: t('fence.bind'), onClick: (record) => setBinding(record) },
    ],
    toolbar: (
      <Access code="fence" action="add">
        <Space>
          <Button type="primary" data-testid="fence-create" onClick={() => setEditing({})}>{t('fence.create')}</Button>
          <Button data-testid="route-wizard-platform" onClick={() => setWizard(1)}>{t('fence.platformRouteWizard')}</Button>
          <Button data-testid="route-wizard-terminal" onClick={() => setWizard(2)}>{t('fence.routeWizard')}</Button>
        </Space>
      </Access>
    ),
  });

  return (
    <div data-testid="fence-screen">
      <ListPage key={version} screen={screen} />
      <FenceDrawer record={editing} onClose={() => setEditing(null)} onSaved={() => { setEditing(null); reload(); }} />
      <BindingDrawer fence={binding} onClose={() => setBinding(null)} onChanged={reload} />
      {wizard !== null && (
        <Suspense fallback={null}>
          <RouteWizard businessType={wizard} onClose={() => setWizard(null)} onDone={() => { setWizard(null); reload(); }} />
        </Suspense>
      )}
    </div>
  );
}
