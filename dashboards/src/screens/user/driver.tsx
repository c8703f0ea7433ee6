import { Button } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useAccess } from '../../auth/access';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';
import { validateName, validateNationalId, validatePhone } from '../../utils/validators';

/**
 * Platform-spec §2 "driver" (with edit): the list, import and export here; creating and editing on the
 * driver's edit page (`/user/driver/edit?id=`), which also takes the photo.
 */
const screen = defineListScreen({
  entity: 'driver',
  namespace: 'fleet:driver',
  columns: ['name', 'phone', 'nationalId', 'licenceNo', 'licenceClass', 'licenceExpire', 'qualificationNo', 'state'],
  filters: ['name', 'phone', 'nationalId', 'state'],
  validators: { name: validateName, phone: validatePhone, nationalId: validateNationalId },
  features: { create: false, edit: false },
  detail: (record) => `/user/driver/edit?id=${String(record.id)}`,
});

export default function DriverList() {
  const { t } = useTranslation('fleet');
  const { can } = useAccess();
  const adding = can('driver', 'add');
  const withToolbar = useMemo(() => ({
    ...screen,
    toolbar: adding ? (
      <Link to="/user/driver/edit"><Button type="primary" data-testid="driver-new">{t('action.create')}</Button></Link>
    ) : null,
  }), [adding, t]);
  return <ListPage screen={withToolbar} />;
}
