import { UploadOutlined } from '@ant-design/icons';
import { Alert, App, Button, Card, Descriptions, Input, Progress, Space, Spin, Upload } from 'antd';
import dayjs from 'dayjs';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAccess } from '../../auth/access';
import { fetchLicenceStatus, installLicence, type LicenceStatus } from '../../features/licence/api';

function Usage({ status }: { status: LicenceStatus }) {
  const { t } = useTranslation('settings');
  const allowed = status.vehiclesAllowed;
  return (
    <Space orientation="vertical" style={{ width: '100%' }}>
      <span data-testid="licence-usage">{t('license.vehiclesUsed')}: {status.vehiclesUsed} / {allowed ?? t('license.unlimited')}</span>
      {allowed ? <Progress percent={Math.min(100, Math.round((status.vehiclesUsed / allowed) * 100))} /> : null}
    </Space>
  );
}

function Current({ status }: { status: LicenceStatus }) {
  const { t } = useTranslation('settings');
  const licence = status.licence;
  if (status.community || !licence) {
    return (
      <Space orientation="vertical" style={{ width: '100%' }}>
        <Alert type="info" showIcon title={t('license.community')} data-testid="licence-community" />
        <Usage status={status} />
        <span>{t('license.machineCode')}: <code data-testid="licence-machine-code">{status.machineCode}</code></span>
      </Space>
    );
  }
  return (
    <Space orientation="vertical" style={{ width: '100%' }}>
      {status.expired && <Alert type="error" showIcon title={t('license.expired')} data-testid="licence-expired" />}
      <Descriptions bordered size="small" column={2} data-testid="licence-detail" items={[
        { key: 'licensee', label: t('license.licensee'), children: licence.licensee },
        { key: 'enterprise', label: t('license.enterprise'), children: licence.enterprise },
        { key: 'maxVehicles', label: t('license.maxVehicles'), children: licence.maxVehicles },
        { key: 'daysLeft', label: t('license.daysLeft'), children: status.daysLeft },
        { key: 'validFrom', label: t('license.validFrom'), children: licence.validFrom },
        { key: 'validTo', label: t('license.validTo'), children: licence.validTo },
        { key: 'features', label: t('license.features'), children: licence.features.join(', ') },
        { key: 'machineCode', label: t('license.machineCode'), children: status.machineCode },
        { key: 'installedBy', label: t('license.installedBy'), children: licence.installedBy },
        { key: 'installedAt', label: t('license.installedAt'), children: dayjs(licence.installedAt).format('YYYY-MM-DD HH:mm:ss') },
      ]} />
      <Usage status={status} />
    </Space>
  );
}

/** Platform-spec §2 settings "licenseDetail": the licence in force (or community) and installing one. */
export default function LicenceDetailScreen() {
  const { t } = useTranslation('settings');
  const { message } = App.useApp();
  const canInstall = useAccess().can('license', 'add');
  const [status, setStatus] = useState<LicenceStatus | null>(null);
  const [text, setText] = useState('');
  const [installing, setInstalling] = useState(false);

  const load = useCallback((signal?: AbortSignal) => {
    void fetchLicenceStatus(signal).then((reply) => {
      if (!signal?.aborted && reply.code === 0) setStatus(reply.data);
    });
  }, []);
  useEffect(() => {
    const controller = new AbortController();
    load(controller.signal);
    return () => controller.abort();
  }, [load]);

  const install = async () => {
    if (!text.trim()) {
      void message.warning(t('license.licenceRequired'));
      return;
    }
    setInstalling(true);
    const reply = await installLicence(text);
    setInstalling(false);
    if (reply.code === 0 && reply.data) {
      setStatus(reply.data);
      setText('');
      void message.success(t('license.installed'));
    }
  };

  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
      <Card title={t('license.detailTitle')} data-testid="licence-screen">
        {status ? <Current status={status} /> : <Spin />}
      </Card>
      {canInstall && (
        <Card title={t('license.installTitle')}>
          <p>{t('license.installHint')}</p>
          <Input.TextArea rows={6} value={text} onChange={(e) => setText(e.target.value)} data-testid="licence-text"
            placeholder="-----BEGIN FLEETWATCH LICENCE-----" />
          <Space style={{ marginTop: 12 }}>
            <Upload accept=".lic,.txt,text/plain" showUploadList={false} beforeUpload={(file) => {
              void file.text().then(setText);
              return false;
            }}>
              <Button icon={<UploadOutlined />}>{t('license.readFile')}</Button>
            </Upload>
            <Button type="primary" loading={installing} onClick={() => void install()} data-testid="licence-install">{t('license.install')}</Button>
          </Space>
        </Card>
      )}
    </Space>
  );
}
