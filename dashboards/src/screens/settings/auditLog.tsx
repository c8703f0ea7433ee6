import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import ChangeList from '../../features/audit/ChangeList';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

export const ENTITY = 'auditLog';

/** Audit log: every create / update / delete, newest first, read only; a change shows
 * each field's before → after. Filters: entity, record id, user, time range. */
export default function AuditLogScreen() {
  const { t } = useTranslation('audit');
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'audit',
    columns: [
      'time',
      'userName',
      { field: 'entity', render: (value) => t(`entities.${String(value)}`, { defaultValue: String(value) }) },
      'recordId',
      { field: 'action', render: (value) => t(`actions.${String(value)}`, { defaultValue: String(value) }) },
      { field: 'changes', render: (value) => <ChangeList changes={value} /> },
    ],
    filters: ['entity', 'recordId', 'userName', 'action', 'time'],
    features: { create: false, edit: false, delete: false, import: false },
  }), [t]);
  return <ListPage screen={screen} />;
}
