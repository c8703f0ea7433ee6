import { App, Col, Row, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import ListPage from '../../features/list/ListPage';
import { defineListScreen, type ListRecord, type RowActionContext } from '../../features/list/types';
import { setState } from '../../features/org/api';
import EnterpriseTree from '../../features/org/EnterpriseTree';
import { PasswordDialog, RolesDialog } from '../../features/org/UserDialogs';
import { validateName, validatePassword, validatePhone, validateUsername } from '../../utils/validators';

export const ENTITY = 'user';

/**
 * Platform-spec §2 "user": the users of the selected enterprise (of the caller's whole subtree when
 * none is selected); create with console-spec §5's validators, edit, roles, reset password, enable /
 * disable. A new user belongs to the enterprise chosen in the drawer: the tree's selection, else the
 * caller's own, changeable to any of the caller's subtree.
 */
export default function UserScreen() {
  const { t } = useTranslation('org');
  const { notification } = App.useApp();
  const [selected, setSelected] = useState<number | undefined>();
  const [dialog, setDialog] = useState<{ kind: 'roles' | 'password'; user: ListRecord; reload: () => void } | null>(null);

  const screen = useMemo(() => {
    const toggle = (action: 'enable' | 'disable') => async (record: ListRecord, context: RowActionContext) => {
      const reply = await setState('user', record.id, action);
      if (reply.code === 0) notification.success({ title: t(`done.${action}`) });
      context.reload();
    };
    const open = (kind: 'roles' | 'password') => (user: ListRecord, context: RowActionContext) =>
      setDialog({ kind, user, reload: context.reload });
    return defineListScreen({
      entity: ENTITY,
      namespace: 'org:user',
      query: selected === undefined ? undefined : { 'enterpriseId.eq': selected },
      createDefaults: selected === undefined ? undefined : { enterpriseId: selected },
      columns: ['id', 'userName', 'name', 'nickName', 'phone', 'email', 'enterpriseId',
        { field: 'state', render: (value) => <Tag color={value === 1 ? 'green' : 'red'}>{t(`state.${String(value)}`)}</Tag> },
        'createTime'],
      filters: ['userName', 'name', 'phone', 'state'],
      form: ['enterpriseId', 'userName', 'password', 'name', 'nickName', 'phone', 'email'],
      validators: { userName: validateUsername, password: validatePassword, name: validateName, phone: validatePhone },
      rowActions: [
        { key: 'roles', action: 'update', label: t('action.roles'), onClick: open('roles') },
        { key: 'password', action: 'update', label: t('action.password'), onClick: open('password') },
        { key: 'enable', action: 'enable', label: t('action.enable'), onClick: toggle('enable') },
        { key: 'disable', action: 'disable', label: t('action.disable'), onClick: toggle('disable') },
      ],
    });
  }, [selected, t, notification]);

  const close = () => setDialog(null);
  const saved = () => {
    dialog?.reload();
    setDialog(null);
  };
  return (
    <Row gutter={16} data-testid="user-screen">
      <Col xs={24} md={6}>
        <EnterpriseTree selected={selected} onSelect={setSelected} version={0} />
      </Col>
      <Col xs={24} md={18}>
        <ListPage key={String(selected)} screen={screen} />
      </Col>
      <RolesDialog user={dialog?.kind === 'roles' ? dialog.user : null} onClose={close} onSaved={saved} />
      <PasswordDialog user={dialog?.kind === 'password' ? dialog.user : null} onClose={close} onSaved={saved} />
    </Row>
  );
}
