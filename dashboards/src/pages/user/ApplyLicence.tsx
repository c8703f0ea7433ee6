import { Button, Form, Input, InputNumber, Result } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { applyForLicence, fetchMachineCode, type LicenceApplication } from '../../features/licence/api';
import { LOGIN_PATH } from '../../router/paths';
import { required, ruleOf } from '../../utils/formRules';
import { validateName, validatePhone } from '../../utils/validators';

/** The server's rule (api/query/validators.py): no '@', control character or space in the parts. */
// eslint-disable-next-line no-control-regex -- the same character class as the server's rule
const EMAIL = /^[^@\x00-\x20]+@[^@\x00-\x20]+\.[^@\x00-\x20]+$/;

/** /user/license (platform-spec §2 applyForLicense): reachable without signing in; shows this
 * installation's machine code; fields checked with the console-spec §5 validators (the server checks
 * them again and limits applications per address). */
export default function ApplyLicence() {
  const { t } = useTranslation(['settings', 'validation']);
  const [machineCode, setMachineCode] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const [done, setDone] = useState(false);

  useEffect(() => {
    const controller = new AbortController();
    void fetchMachineCode(controller.signal).then((code) => {
      if (!controller.signal.aborted) setMachineCode(code);
    });
    return () => controller.abort();
  }, []);

  const onFinish = async (values: LicenceApplication) => {
    setSubmitting(true);
    const reply = await applyForLicence(values);
    setSubmitting(false);
    if (reply.code === 0) setDone(true);
  };

  if (done) {
    return (
      <Result status="success" title={t('apply.success')} subTitle={t('apply.successDetail', { code: machineCode })}
        extra={<Link to={LOGIN_PATH}>{t('apply.back')}</Link>} data-testid="licence-apply-done" />
    );
  }
  return (
    <div className="login-main">
      <h2 className="login-heading">{t('apply.title')}</h2>
      <p>{t('apply.machineCode')}: <code data-testid="apply-machine-code">{machineCode}</code></p>
      <Form<LicenceApplication> name="licence-apply" layout="vertical" onFinish={onFinish}>
        <Form.Item name="company" label={t('apply.company')} rules={[required(t('apply.companyRequired')), ruleOf(validateName, t), { max: 100 }]}>
          <Input data-testid="apply-company" />
        </Form.Item>
        <Form.Item name="contact" label={t('apply.contact')} rules={[required(t('apply.contactRequired')), ruleOf(validateName, t), { max: 50 }]}>
          <Input data-testid="apply-contact" />
        </Form.Item>
        <Form.Item name="phone" label={t('apply.phone')} rules={[required(t('apply.phoneRequired')), ruleOf(validatePhone, t)]}>
          <Input data-testid="apply-phone" />
        </Form.Item>
        <Form.Item name="email" label={t('apply.email')} rules={[required(t('apply.emailRequired')), { pattern: EMAIL, message: t('apply.emailInvalid') }, { max: 128 }]}>
          <Input data-testid="apply-email" />
        </Form.Item>
        <Form.Item name="vehicles" label={t('apply.vehicles')} rules={[required(t('apply.vehiclesRequired'))]}>
          <InputNumber min={1} max={1000000} precision={0} style={{ width: '100%' }} data-testid="apply-vehicles" />
        </Form.Item>
        <Form.Item>
          <Button type="primary" htmlType="submit" block loading={submitting} data-testid="apply-submit">{t('apply.submit')}</Button>
        </Form.Item>
        <Link to={LOGIN_PATH}>{t('apply.back')}</Link>
      </Form>
    </div>
  );
}
