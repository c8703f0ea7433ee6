import { App, Form, Input, Modal, Select } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ListRecord } from '../list/types';
import { validatePassword } from '../../utils/validators';
import { fetchRecord, fetchRoles, patchRecord } from './api';
import { enterpriseNames, lineageOf, roleLabel, useEnterpriseTree } from './enterprises';

interface DialogProps {
  /** The user the dialog is open for; null: closed. */
  user: ListRecord | null;
  onClose: () => void;
  onSaved: () => void;
}

/** The server's 400 on a field goes under it; anything else is a notice. */
function useSaveFailure() {
  const { t } = useTranslation('org');
  const { notification } = App.useApp();
  return (showOnField: (message: string) => void, field: string, reply: { code: number; message: string; data: unknown }) => {
    const named = (reply.data as { field?: string } | null)?.field;
    if (named === field) showOnField(reply.message);
    else notification.error({ title: t('common:request.errorTitle'), description: reply.message });
  };
}

/** Assign roles: roles of the user's enterprise or its ancestors the administrator can see. */
export function RolesDialog({ user, onClose, onSaved }: DialogProps) {
  const { t } = useTranslation('org');
  const { message } = App.useApp();
  const [form] = Form.useForm<{ roles: number[] }>();
  const [roles, setRoles] = useState<ListRecord[]>([]);
  const failed = useSaveFailure();
  const tree = useEnterpriseTree(user !== null);
  const names = useMemo(() => enterpriseNames(tree), [tree]);
  useEffect(() => {
    if (!user) return undefined;
    const controller = new AbortController();
    void fetchRoles(controller.signal).then((reply) => {
      if (reply.code === 0 && reply.data) setRoles(reply.data.list);
    });
    void fetchRecord<{ roles: number[] }>('user', user.id, controller.signal).then((reply) => {
      if (reply.code === 0 && reply.data) form.setFieldsValue({ roles: reply.data.roles });
    });
    return () => controller.abort();
  }, [user, form]);
  // Only the roles the server assigns to this user: those of its enterprise or an ancestor within the
  // caller's tree (warehouse/queries/organisation.py assignable_roles). Every enterprise may have a
  // role of the same name (the seeded 管理员): its enterprise tells them apart.
  const options = useMemo(() => {
    const lineage = lineageOf(tree, Number(user?.enterpriseId));
    return roles.filter((r) => lineage.has(Number(r.enterpriseId)))
      .map((r) => ({ value: Number(r.id), label: roleLabel(r.name, r.enterpriseId, names) }));
  }, [roles, names, tree, user]);
  const save = async () => {
    const { roles } = await form.validateFields();
    const reply = await patchRecord('user', user?.id, { roles: roles ?? [] });
    if (reply.code !== 0) return failed((error) => form.setFields([{ name: 'roles', errors: [error] }]), 'roles', reply);
    void message.success(t('done.roles'));
    onSaved();
  };
  return (
    <Modal open={user !== null} title={t('user.rolesTitle', { name: user?.userName ?? '' })} onCancel={onClose}
      onOk={() => void save()} destroyOnHidden data-testid="user-roles-dialog">
      <Form form={form} layout="vertical">
        <Form.Item name="roles" label={t('user.fields.roles')}>
          <Select mode="multiple" options={options} optionFilterProp="label" data-testid="user-roles-select" />
        </Form.Item>
      </Form>
    </Modal>
  );
}

/** An administrator sets a new password; the user's sessions end (server side). */
export function PasswordDialog({ user, onClose, onSaved }: DialogProps) {
  const { t } = useTranslation(['org', 'validation']);
  const { message } = App.useApp();
  const [form] = Form.useForm<{ password: string; confirmPassword: string }>();
  const failed = useSaveFailure();
  const save = async () => {
    const { password } = await form.validateFields();
    const reply = await patchRecord('user', user?.id, { password });
    if (reply.code !== 0) return failed((error) => form.setFields([{ name: 'password', errors: [error] }]), 'password', reply);
    void message.success(t('done.password'));
    onSaved();
  };
  const strong = (_rule: unknown, value: unknown) => {
    const key = validatePassword(value);
    return key ? Promise.reject(new Error(t(key))) : Promise.resolve();
  };
  return (
    <Modal open={user !== null} title={t('user.passwordTitle', { name: user?.userName ?? '' })} onCancel={onClose}
      onOk={() => void save()} destroyOnHidden data-testid="user-password-dialog">
      <Form form={form} layout="vertical">
        <Form.Item name="password" label={t('user.newPassword')}
          rules={[{ required: true, message: t('validation:newPasswordRequired') }, { validator: strong }]}>
          <Input.Password autoComplete="new-password" data-testid="user-password-input" />
        </Form.Item>
        <Form.Item name="confirmPassword" label={t('user.confirmPassword')} dependencies={['password']}
          rules={[{ required: true, message: t('validation:confirmPasswordRequired') },
            ({ getFieldValue }) => ({
              validator: (_rule, value) => (value === getFieldValue('password') ? Promise.resolve()
                : Promise.reject(new Error(t('validation:passwordMismatch')))),
            })]}>
          <Input.Password autoComplete="new-password" data-testid="user-password-confirm" />
        </Form.Item>
      </Form>
    </Modal>
  );
}
