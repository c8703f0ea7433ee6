import { LockOutlined, UserOutlined } from '@ant-design/icons';
import { Button, Form, Input } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { session } from '../../auth/session';
import { signIn } from '../../auth/sessionService';
import { LICENCE_APPLY_PATH } from '../../router/paths';

interface LoginForm {
  username: string;
  password: string;
}

/**
 * Sign-in (console-spec §2, §4). On success the session holds token and user, and GuestOnly sends the
 * user to the redirect query (a local path) or the index URL. Failures are notified by the API client.
 */
export default function Login() {
  const { t } = useTranslation(['auth', 'settings']);
  const [submitting, setSubmitting] = useState(false);
  useEffect(() => session.acknowledgeLogout(), []);

  const onFinish = async (values: LoginForm) => {
    setSubmitting(true);
    try {
      await signIn(values.username.trim(), values.password);
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <div className="login-main">
      <h2 className="login-heading">{t('login.title')}</h2>
      <Form<LoginForm> name="login" size="large" onFinish={onFinish} autoComplete="on">
        <Form.Item name="username" rules={[{ required: true, message: t('login.usernameRequired') }]}>
          <Input
            prefix={<UserOutlined />}
            placeholder={t('login.username')}
            autoComplete="username"
            data-testid="login-username"
          />
        </Form.Item>
        <Form.Item name="password" rules={[{ required: true, message: t('login.passwordRequired') }]}>
          <Input.Password
            prefix={<LockOutlined />}
            placeholder={t('login.password')}
            autoComplete="current-password"
            data-testid="login-password"
          />
        </Form.Item>
        <Form.Item>
          <Button type="primary" htmlType="submit" block loading={submitting} data-testid="login-submit">
            {t('login.submit')}
          </Button>
        </Form.Item>
        <Link to={LICENCE_APPLY_PATH} data-testid="login-apply-licence">{t('settings:apply.link')}</Link>
      </Form>
    </div>
  );
}
