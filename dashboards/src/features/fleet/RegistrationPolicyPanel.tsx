import { Alert, App, Button, Card, Flex, InputNumber, Result, Space, Spin, Switch, Typography } from 'antd';
import { useCallback, useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAccess } from '../../auth/access';
import { fetchRegistrationPolicy, saveRegistrationPolicy, type RegistrationPolicy } from './api';

/**
 * The enterprise's terminal registration policy (gateway/README.md): require the recorded IMEI in 0x0102,
 * and hold a re-registration of a device online (or online within the window) for an administrator's
 * approval. Read by whoever may see the enterprise; changed with enterprise:update (the server enforces it).
 */
export default function RegistrationPolicyPanel() {
  const { t } = useTranslation('fleet');
  const { message } = App.useApp();
  const canChange = useAccess().can('enterprise', 'update');
  const [saved, setSaved] = useState<RegistrationPolicy | null>(null);
  const [edited, setEdited] = useState<RegistrationPolicy | null>(null);
  const [failed, setFailed] = useState(false);
  const [saving, setSaving] = useState(false);

  const show = useCallback((policy: RegistrationPolicy | null) => {
    if (!policy) {
      setFailed(true);
      return;
    }
    setSaved(policy);
    setEdited(policy);
  }, []);

  useEffect(() => {
    let live = true;
    void fetchRegistrationPolicy().then((reply) => {
      if (live) show(reply.code === 0 ? reply.data : null);
    });
    return () => {
      live = false;
    };
  }, [show]);

  if (failed) return <Result status="warning" title={t('policy.loadFailed')} />;
  if (!saved || !edited) return <Spin style={{ display: 'block', margin: 48 }} />;

  const changed = saved.requireImei !== edited.requireImei || saved.approveReregistration !== edited.approveReregistration
    || saved.approvalWindowMin !== edited.approvalWindowMin;
  const save = async () => {
    setSaving(true);
    try {
      const reply = await saveRegistrationPolicy(edited);
      if (reply.code === 0) {
        void message.success(t('policy.saved'));
        show(reply.data);
      }
    } finally {
      setSaving(false);
    }
  };

  return (
    <Card size="small" title={t('policy.title')} data-testid="registration-policy"
      extra={canChange && (
        <Button type="primary" loading={saving} disabled={!changed} onClick={() => void save()}
          data-testid="registration-policy-save">
          {t('policy.save')}
        </Button>
      )}>
      <Space orientation="vertical" size={16}>
        {!canChange && <Alert type="info" showIcon title={t('policy.readOnly')} />}
        {saved.inherited && <Typography.Text type="secondary">{t('policy.inherited')}</Typography.Text>}
        <PolicySwitch testId="policy-requireImei" checked={edited.requireImei} disabled={!canChange}
          label={t('policy.requireImei')} hint={t('policy.requireImeiHint')}
          onChange={(checked) => setEdited({ ...edited, requireImei: checked })} />
        <PolicySwitch testId="policy-approveReregistration" checked={edited.approveReregistration} disabled={!canChange}
          label={t('policy.approveReregistration')} hint={t('policy.approveReregistrationHint')}
          onChange={(checked) => setEdited({ ...edited, approveReregistration: checked })} />
        <Space size={12}>
          <span>{t('policy.approvalWindowMin')}</span>
          <InputNumber min={0} max={10080} precision={0} value={edited.approvalWindowMin} disabled={!canChange}
            data-testid="policy-approvalWindowMin"
            onChange={(value) => setEdited({ ...edited, approvalWindowMin: typeof value === 'number' ? value : 0 })} />
        </Space>
      </Space>
    </Card>
  );
}

interface PolicySwitchProps {
  testId: string;
  checked: boolean;
  disabled: boolean;
  label: string;
  hint: string;
  onChange: (checked: boolean) => void;
}

/** A policy's switch with its name and, under the name, what it does: side by side the three squeezed the name to a
 * few characters a line on a phone. The switch is named by its label for a screen reader. */
function PolicySwitch({ testId, checked, disabled, label, hint, onChange }: PolicySwitchProps) {
  const labelId = useId();
  return (
    <Flex gap={12} align="flex-start">
      <Switch checked={checked} disabled={disabled} data-testid={testId} aria-labelledby={labelId}
        onChange={onChange} />
      <Flex vertical gap={2}>
        <span id={labelId}>{label}</span>
        <Typography.Text type="secondary">{hint}</Typography.Text>
      </Flex>
    </Flex>
  );
}
