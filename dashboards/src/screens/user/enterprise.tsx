import { App, Col, Row, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import { defineListScreen, type ListRecord, type RowActionContext } from '../../features/list/types';
import { setState } from '../../features/org/api';
import EnterpriseTree from '../../features/org/EnterpriseTree';
import { validateName, validatePhone } from '../../utils/validators';

export const ENTITY = 'enterprise';

/**
 * Platform-spec §2 "enterprise": the caller's tree on the left (`/api/aas/subsidiary.json`), the
 * subsidiaries of the selected node (all of the caller's subtree when none is) on the right; a new
 * subsidiary goes under the selected node; enable / disable (a disabled enterprise's users and its
 * whole subtree cannot sign in).
 */
export default function EnterpriseScreen() {
  const { t } = useTranslation('org');
  const { notification } = App.useApp();
  const [selected, setSelected] = useState<number | undefined>();
  const [version, setVersion] = useState(0);

  const screen = useMemo(() => {
    const toggle = (action: 'enable' | 'disable') => async (record: ListRecord, context: RowActionContext) => {
      const reply = await setState('enterprise', record.id, action);
      if (reply.code === 0) notification.success({ title: t(`done.${action}`) });
      context.reload();
      setVersion((v) => v + 1);
    };
    return defineListScreen({
      entity: ENTITY,
      namespace: 'org:enterprise',
      query: selected === undefined ? undefined : { 'enterpriseId.eq': selected },
      createDefaults: selected === undefined ? undefined : { enterpriseId: selected },
      columns: ['id', 'name', 'shortName', 'type', 'contact', 'phone',
        { field: 'state', render: (value) => <Tag color={value === 1 ? 'green' : 'red'}>{t(`state.${String(value)}`)}</Tag> },
        'createTime'],
      form: ['name', 'shortName', 'type', 'contact', 'phone', 'address'],
      validators: { contact: validateName, phone: validatePhone },
      rowActions: [
        { key: 'enable', action: 'enable', label: t('action.enable'), onClick: toggle('enable') },
        { key: 'disable', action: 'disable', label: t('action.disable'), onClick: toggle('disable') },
      ],
    });
  }, [selected, t, notification]);

  return (
    <Row gutter={16} data-testid="enterprise-screen">
      <Col xs={24} md={6}>
        <EnterpriseTree selected={selected} onSelect={setSelected} version={version} />
      </Col>
      <Col xs={24} md={18}>
        <ListPage key={String(selected)} screen={screen} />
      </Col>
    </Row>
  );
}
