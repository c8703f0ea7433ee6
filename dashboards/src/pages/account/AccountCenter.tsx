import { MailOutlined, PhoneOutlined, TeamOutlined, UserOutlined } from '@ant-design/icons';
import { Avatar, Card, Col, Descriptions, Row, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { displayName } from '../../auth/types';
import { useSession } from '../../auth/useSession';

/** Account center: who the signed-in user is (from the session's current user). */
export default function AccountCenter() {
  const { t } = useTranslation('account');
  const { user } = useSession();
  if (!user) return null;
  const place = [user.country, user.province, user.city, user.address].filter(Boolean).join(' ');
  return (
    <Row gutter={24} data-testid="account-center">
      <Col lg={7} md={24}>
        <Card variant="borderless" style={{ marginBottom: 24, textAlign: 'center' }}>
          <Avatar size={104} src={user.avatar || undefined} icon={<UserOutlined />} />
          <Typography.Title level={4} style={{ marginTop: 16 }}>
            {displayName(user)}
          </Typography.Title>
          <Typography.Paragraph type="secondary">{user.profile || t('center.noProfile')}</Typography.Paragraph>
          <Typography.Paragraph>
            <TeamOutlined /> {user.enterpriseName || '-'}
          </Typography.Paragraph>
        </Card>
      </Col>
      <Col lg={17} md={24}>
        <Card variant="borderless" title={t('center.title')}>
          <Descriptions column={1} bordered size="small">
            <Descriptions.Item label={t('center.userName')}>{user.userName}</Descriptions.Item>
            <Descriptions.Item label={t('center.name')}>{user.name || '-'}</Descriptions.Item>
            <Descriptions.Item label={t('center.nickName')}>{user.nickName || '-'}</Descriptions.Item>
            <Descriptions.Item label={t('center.enterprise')}>{user.enterpriseName || '-'}</Descriptions.Item>
            <Descriptions.Item label={<><MailOutlined /> {t('center.email')}</>}>{user.email || '-'}</Descriptions.Item>
            <Descriptions.Item label={<><PhoneOutlined /> {t('center.phone')}</>}>{user.phone || '-'}</Descriptions.Item>
            <Descriptions.Item label={t('center.address')}>{place || '-'}</Descriptions.Item>
          </Descriptions>
        </Card>
      </Col>
    </Row>
  );
}
