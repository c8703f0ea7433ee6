/**
 * Platform-spec §2 settings "fence": the fences on the one list framework (filters, paging, delete, import,
 * export from the server's declaration of `fence`), created and edited in a drawer that draws on the map,
 * each fence's bound vehicles and their sync state, the binding import (a sheet of fence name and plate number
 * rows, here for any of the caller's fences, in a fence's binding drawer for that one), a district fence's
 * region by name, and the two route wizards. Every button is behind the
 * `fence` permission code's actions; the server checks them again on every route.
 */
import { Button, Space } from 'antd';
import { UploadOutlined } from '@ant-design/icons';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import Access from '../../auth/Access';
import { loadable } from '../../components/loadable';
import LoadingDialog from '../../components/LoadingDialog';
import ImportDialog from '../list/ImportDialog';
import ListPage from '../list/ListPage';
import { defineListScreen, type ListRecord } from '../list/types';
import BindingDrawer from './BindingDrawer';
import { bindingImporter } from './bindingImport';
import { DistrictName } from './DistrictPicker';
import FenceDrawer from './FenceDrawer';
import type { RouteWizardProps } from './RouteWizard';

/** The wizard's frame while its code (a map, the segment editor) loads. */
function WizardLoading({ businessType, onClose }: RouteWizardProps) {
  const { t } = useTranslation('fence');
  return <LoadingDialog title={t(businessType === 1 ? 'fence.platformRouteWizard' : 'fence.routeWizard')} width={1100} onClose={onClose} />;
}

const RouteWizard = loadable(() => import('./RouteWizard').then((module) => module.default), WizardLoading);

export default function FenceScreen() {
  const { t, i18n } = useTranslation('fence');
  const [importing, setImporting] = useState(false);
  const importer = useMemo(() => bindingImporter(i18n.language), [i18n.language]);
  const [editing, setEditing] = useState<ListRecord | null>(null);
  const [binding, setBinding] = useState<ListRecord | null>(null);
  const [wizard, setWizard] = useState<1 | 2 | null>(null);
  const [version, setVersion] = useState(0);
  const reload = useCallback(() => setVersion((v) => v + 1), []);

  const screen = defineListScreen({
    entity: 'fence',
    namespace: 'fence:fence',
    columns: ['name', 'enterpriseName', 'fenceType', 'businessType', {
      field: 'shape',
      // A province / city / district fence names its region (the shape alone does not say which).
      render: (value, record) => (value === 'district'
        ? <DistrictName adcode={(record.geometry as { districtId?: unknown } | null)?.districtId} testId={`fence-district-${String(record.id)}`} />
        : t(`fence.enums.shape.${String(value)}`, { defaultValue: String(value ?? '') })),
    }, 'speedLimit', 'bindCount', 'updatedAt'],
    filters: ['name', 'fenceType', 'businessType'],
    features: { create: false, edit: false },
    rowActions: [
      { key: 'fenceEdit', action: 'edit', label: t('fence.edit'), onClick: (record) => setEditing(record) },
      { key: 'bind', action: 'fence', label: t('fence.bind'), onClick: (record) => setBinding(record) },
    ],
    toolbar: (<>
      <Access code="fence" action="add">
        <Space>
          <Button type="primary" data-testid="fence-create" onClick={() => setEditing({})}>{t('fence.create')}</Button>
          <Button data-testid="route-wizard-platform" onClick={() => setWizard(1)}>{t('fence.platformRouteWizard')}</Button>
          <Button data-testid="route-wizard-terminal" onClick={() => setWizard(2)}>{t('fence.routeWizard')}</Button>
        </Space>
      </Access>
      <Access code="fence" action="import">
        <Button icon={<UploadOutlined />} data-testid="fence-binding-import" onClick={() => setImporting(true)}>{t('binding.import')}</Button>
      </Access>
    </>),
  });

  return (
    <div data-testid="fence-screen">
      <ListPage key={version} screen={screen} />
      <FenceDrawer record={editing} onClose={() => setEditing(null)} onSaved={() => { setEditing(null); reload(); }} />
      <ImportDialog entity="fenceBinding" importer={importer} title={t('binding.importTitle')} testId="binding-import-dialog"
        open={importing} onClose={() => setImporting(false)} onImported={reload} />
      <BindingDrawer fence={binding} onClose={() => setBinding(null)} onChanged={reload} />
      {wizard !== null && (
        <RouteWizard businessType={wizard} onClose={() => setWizard(null)} onDone={() => { setWizard(null); reload(); }} />
      )}
    </div>
  );
}
