import { Button } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useAccess } from '../../auth/access';
import { driverDetailHref } from '../../features/driverDetail/model';
import ListPage from '../../features/list/ListPage';
import { defineListScreen, type ListRecord } from '../../features/list/types';
import { validateName, validateNationalId, validatePhone } from '../../utils/validators';

export const ENTITY = 'driver';

/**
 * Platform-spec §2 "driver" (with edit): the list, import and export here; a row's detail is the driver's
 * detail page (`/user/driver/detail?id=`); creating and editing on the driver's edit page
 * (`/user/driver/edit?id=`), which also takes the photo.
 */
const screen = defineListScreen({
  entity: ENTITY,
  namespace: 'fleet:driver',
  columns: ['name', 'phone', 'nationalId', 'licenceNo', 'licenceClass', 'licenceExpire', 'qualificationNo', 'state'],
  filters: ['name', 'phone', 'nationalId', 'state'],
  validators: { name: validateName, phone: validatePhone, nationalId: validateNationalId },
  features: { create: false, edit: false },
  detail: (record) => driverDetailHref(record.id),
});

export default function DriverList() {
  const { t } = useTranslation('fleet');
  const { can } = useAccess();
  const adding = can('driver', 'add');
  // the list's own edit drawer is off (features.edit), so its `update` check is too: the link checks here
  const editing = can('driver', 'update');
  const withToolbar = useMemo(() => ({
    ...screen,
    rowActions: editing
      ? [{ key: 'edit', label: t('action.edit'), href: (record: ListRecord) => `/user/driver/edit?id=${String(record.id)}` }]
      : [],
    toolbar: adding ? (
      <Link to="/user/driver/edit"><Button type="primary" data-testid="driver-new">{t('action.create')}</Button></Link>
    ) : null,
  }), [adding, editing, t]);
  return <ListPage screen={withToolbar} />;
}
