import { App, Button, Form, Input } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { changePassword } from '../../auth/authApi';
import { logout } from '../../auth/sessionService';
import { useSession } from '../../auth/useSession';
import { LOGIN_PATH } from '../../router/paths';
import { ruleOf, required } from '../../utils/formRules';
import { validatePassword } from '../../utils/validators';

interface PasswordForm {
  oldPassword: string;
  password: string;
  confirmPassword: string;
}

/** Change password (console-spec §5); success logs the user out to login (§4). */
export default function PasswordSettings() {
  const { t } = useTranslation('account');
  const { message } = App.useApp();
  const navigate = useNavigate();
  const { user } = useSession();
  const [saving, setSaving] = useState(false);
  if (!user) return null;

  const onFinish = async (values: PasswordForm) => {
    setSaving(true);
    const reply = await changePassword({ id: user.id, account: user.userName, ...values });
    setSaving(false);
    if (reply.code !== 0) return;
    void message.success(t('password.changed'));
    logout();
    navigate(LOGIN_PATH, { replace: true });
  };

  const strength = ruleOf(validatePassword, t);
  return (
    <Form<PasswordForm> layout="vertical" style={{ maxWidth: 440 }} onFinish={onFinish} data-testid="password-form">
      <Form.Item name="oldPassword" label={t('password.old')} rules={[required(t('validation:oldPasswordRequired')), strength]}>
        <Input.Password autoComplete="current-password" data-testid="password-old" />
      </Form.Item>
      <Form.Item name="password" label={t('password.new')} rules={[required(t('validation:newPasswordRequired')), strength]}>
        <Input.Password autoComplete="new-password" data-testid="password-new" />
      </Form.Item>
      <Form.Item
        name="confirmPassword"
        label={t('password.confirm')}
        dependencies={['password']}
        rules={[
          required(t('validation:confirmPasswordRequired')),
          strength,
          ({ getFieldValue }) => ({
            validator: (_rule, value) =>
              !value || getFieldValue('password') === value ? Promise.resolve() : Promise.reject(new Error(t('validation:passwordMismatch'))),
          }),
        ]}
      >
        <Input.Password autoComplete="new-password" data-testid="password-confirm" />
      </Form.Item>
      <Button type="primary" htmlType="submit" loading={saving} data-testid="password-submit">
        {t('password.submit')}
      </Button>
    </Form>
  );
}
