import { App, Input, Tag } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useAccess } from '../../auth/access';
import ListPage from '../../features/list/ListPage';
import { defineListScreen, type ListRecord } from '../../features/list/types';
import { decideApplication, noticeChanges } from '../../features/notices/api';

export const ENTITY = 'licenceApply';

const STATE_COLOURS: Record<number, string> = { 0: 'processing', 1: 'success', 2: 'error' };

/** Platform-spec §2 settings "licenseApply" (the bell's bizType 1): the applications the sign-in-free page
 * stored, newest first; a pending one is approved or rejected with an opinion (license:update). */
export default function LicenceApplyScreen() {
  const { t } = useTranslation('settings');
  const { modal, message } = App.useApp();
  const canDecide = useAccess().can('license', 'update');
  const screen = useMemo(() => {
    const decide = (record: ListRecord, state: 1 | 2, reload: () => void) => {
      let opinion = '';
      modal.confirm({
        title: t(state === 1 ? 'licenseApply.approveTitle' : 'licenseApply.rejectTitle', { company: String(record.company) }),
        content: <Input.TextArea data-testid="apply-opinion" maxLength={250} placeholder={t('licenseApply.opinion')}
          onChange={(event) => { opinion = event.target.value; }} />,
        onOk: async () => {
          const reply = await decideApplication(record.id, state, opinion);
          if (reply.code !== 0) return;
          void message.success(t('licenseApply.decided'));
          noticeChanges.notify();
          reload();
        },
      });
    };
    const pending = (record: ListRecord) => record.state === 0;
    return defineListScreen({
      entity: ENTITY,
      namespace: 'settings:licenseApply',
      columns: ['createTime', 'company', 'contact', 'phone', 'email', 'vehicles', 'machineCode',
        { field: 'state', render: (value) => <Tag color={STATE_COLOURS[Number(value)]}>{t(`licenseApply.states.${String(value)}`)}</Tag> },
        'handledBy', 'opinion'],
      filters: ['company', 'state'],
      features: { create: false, edit: false, delete: false, import: false, export: false },
      rowActions: canDecide ? [
        { key: 'approve', label: t('licenseApply.approve'), visible: pending, onClick: (record, { reload }) => decide(record, 1, reload) },
        { key: 'reject', label: t('licenseApply.reject'), visible: pending, onClick: (record, { reload }) => decide(record, 2, reload) },
      ] : [],
    });
  }, [t, modal, message, canDecide]);
  return <ListPage screen={screen} />;
}
