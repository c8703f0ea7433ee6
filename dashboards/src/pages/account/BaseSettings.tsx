import { App, Button, Form, Input, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { updateProfile, type ProfileUpdate } from '../../auth/authApi';
import { session } from '../../auth/session';
import { useSession } from '../../auth/useSession';
import { ruleOf, required } from '../../utils/formRules';
import { validatePhone } from '../../utils/validators';

/** The profile form (console-spec §5: each field has its required-field prompt). */
export default function BaseSettings() {
  const { t } = useTranslation('account');
  const { message } = App.useApp();
  const { user } = useSession();
  const [saving, setSaving] = useState(false);
  if (!user) return null;

  const onFinish = async (values: ProfileUpdate) => {
    setSaving(true);
    const reply = await updateProfile(values);
    setSaving(false);
    if (reply.code !== 0 || !reply.data) return;
    const current = session.get().user;
    if (current) session.setUser({ ...current, ...reply.data, permissions: current.permissions, routes: current.routes });
    void message.success(t('base.updated'));
  };

  return (
    <Form<ProfileUpdate>
      layout="vertical"
      style={{ maxWidth: 440 }}
      onFinish={onFinish}
      initialValues={{
        email: user.email ?? '',
        nickName: user.nickName ?? '',
        profile: user.profile ?? '',
        country: user.country ?? '',
        province: user.province ?? '',
        city: user.city ?? '',
        address: user.address ?? '',
        phone: user.phone ?? '',
      }}
    >
      <Form.Item name="email" label={t('base.email')} rules={[required(t('base.emailRequired')), { type: 'email', message: t('base.emailInvalid') }]}>
        <Input data-testid="profile-email" />
      </Form.Item>
      <Form.Item name="nickName" label={t('base.nickName')} rules={[required(t('base.nickNameRequired'))]}>
        <Input data-testid="profile-nickname" />
      </Form.Item>
      <Form.Item name="profile" label={t('base.profile')} rules={[required(t('base.profileRequired'))]}>
        <Input.TextArea rows={4} placeholder={t('base.profilePlaceholder')} />
      </Form.Item>
      <Form.Item name="country" label={t('base.country')} rules={[required(t('base.countryRequired'))]}>
        <Input />
      </Form.Item>
      <Form.Item label={t('base.provinceCity')} required>
        <Space.Compact block>
          <Form.Item name="province" noStyle rules={[required(t('base.provinceCityRequired'))]}>
            <Input placeholder={t('base.province')} style={{ width: '50%' }} />
          </Form.Item>
          <Form.Item
            name="city"
            noStyle
            dependencies={['province']}
            rules={[
              // One prompt for the pair: the city's own only once the province is there.
              ({ getFieldValue }) => ({
                validator: (_rule, value) =>
                  value || !getFieldValue('province') ? Promise.resolve() : Promise.reject(new Error(t('base.provinceCityRequired'))),
              }),
            ]}
          >
            <Input placeholder={t('base.city')} style={{ width: '50%' }} />
          </Form.Item>
        </Space.Compact>
      </Form.Item>
      <Form.Item name="address" label={t('base.address')} rules={[required(t('base.addressRequired'))]}>
        <Input />
      </Form.Item>
      <Form.Item name="phone" label={t('base.phone')} rules={[required(t('base.phoneRequired')), ruleOf(validatePhone, t)]}>
        <Input />
      </Form.Item>
      <Button type="primary" htmlType="submit" loading={saving} data-testid="profile-submit">
        {t('base.submit')}
      </Button>
    </Form>
  );
}
