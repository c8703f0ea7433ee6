import { Alert, Descriptions, Modal, Typography } from 'antd';
import { useTranslation } from 'react-i18next';

export interface ShownSecret {
  appKey: string;
  appSecret: string;
}

/** An open platform app's secret, shown the one time the server answers it (creation or a new secret). */
export default function SecretModal({ secret, onClose }: { secret: ShownSecret | null; onClose: () => void }) {
  const { t } = useTranslation('settings');
  return (
    <Modal open={secret !== null} title={t('openPlatform.secretTitle')} onOk={onClose} onCancel={onClose}
      cancelButtonProps={{ style: { display: 'none' } }} okText={t('openPlatform.secretSaved')} data-testid="secret-modal">
      <Alert type="warning" showIcon title={t('openPlatform.secretOnce')} style={{ marginBottom: 12 }} />
      {secret && (
        <Descriptions size="small" bordered column={1} items={[
          { key: 'appKey', label: 'AppKey', children: <Typography.Text copyable data-testid="secret-app-key">{secret.appKey}</Typography.Text> },
          { key: 'appSecret', label: 'AppSecret', children: <Typography.Text copyable data-testid="secret-app-secret">{secret.appSecret}</Typography.Text> },
        ]} />
      )}
      <p style={{ marginTop: 12 }}>{t('openPlatform.tokenHint')}</p>
      <Typography.Paragraph code copyable>POST /oauth2/token.json?grant_type=client_credentials&amp;client_id=AppKey&amp;client_secret=AppSecret</Typography.Paragraph>
    </Modal>
  );
}
