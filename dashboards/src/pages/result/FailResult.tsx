import { CloseCircleOutlined, RightOutlined } from '@ant-design/icons';
import { Button, Card, Result, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';

/** The failure-result page (console-spec §2, platform-spec §2). */
export default function FailResult() {
  const { t } = useTranslation('exception');
  const navigate = useNavigate();
  return (
    <Card variant="borderless">
      <Result
        status="error"
        title={t('fail.title')}
        subTitle={t('fail.description')}
        data-testid="result-fail"
        extra={
          <Button type="primary" onClick={() => navigate(-1)}>
            {t('fail.backToEdit')}
          </Button>
        }
      >
        <Typography.Paragraph>
          <Typography.Text strong style={{ fontSize: 16 }}>
            {t('fail.hintTitle')}
          </Typography.Text>
        </Typography.Paragraph>
        <Typography.Paragraph>
          <CloseCircleOutlined style={{ color: '#f5222d' }} /> {t('fail.frozen')}{' '}
          <a>
            {t('fail.unfreeze')} <RightOutlined />
          </a>
        </Typography.Paragraph>
        <Typography.Paragraph>
          <CloseCircleOutlined style={{ color: '#f5222d' }} /> {t('fail.notEligible')}{' '}
          <a>
            {t('fail.upgrade')} <RightOutlined />
          </a>
        </Typography.Paragraph>
      </Result>
    </Card>
  );
}
