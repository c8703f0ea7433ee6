import { Button } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import Access from '../../auth/Access';
import { DistrictName } from '../../features/fence/DistrictPicker';
import LabelPointDrawer from '../../features/fence/LabelPointDrawer';
import ListPage from '../../features/list/ListPage';
import { defineListScreen, type ListRecord } from '../../features/list/types';

export const ENTITY = 'labelPoint';

/** Platform-spec §2 settings "labelPoint": the list from the server's declaration, created and edited in a
 * drawer that draws the point or area on the map (features/fence); a province / city / district point names
 * its region. */
/** Platform-spec §9 label point type 6: province / city / district. */
const DISTRICT_POINT_TYPE = 6;

export default function LabelPointSettings() {
  const { t } = useTranslation('fence');
  const [editing, setEditing] = useState<ListRecord | null>(null);
  const [version, setVersion] = useState(0);
  const screen = defineListScreen({
    entity: ENTITY,
    namespace: 'fence:labelPoint',
    columns: ['name', {
      field: 'pointType',
      render: (value, record) => (Number(value) === DISTRICT_POINT_TYPE
        ? <DistrictName adcode={(record.geometry as { districtId?: unknown } | null)?.districtId} testId={`label-point-district-${String(record.id)}`} />
        : t(`labelPoint.enums.pointType.${String(value)}`, { defaultValue: String(value ?? '') })),
    }, 'businessType', 'remark', 'updatedAt'],
    filters: ['name', 'pointType', 'businessType'],
    features: { create: false, edit: false },
    rowActions: [{ key: 'labelPointEdit', action: 'edit', label: t('labelPoint.edit'), onClick: (record) => setEditing(record) }],
    toolbar: (
      <Access code="fence" action="add">
        <Button type="primary" data-testid="label-point-create" onClick={() => setEditing({})}>{t('labelPoint.create')}</Button>
      </Access>
    ),
  });
  return (
    <div data-testid="label-point-screen">
      <ListPage key={version} screen={screen} />
      <LabelPointDrawer record={editing} onClose={() => setEditing(null)}
        onSaved={() => { setEditing(null); setVersion((v) => v + 1); }} />
    </div>
  );
}
