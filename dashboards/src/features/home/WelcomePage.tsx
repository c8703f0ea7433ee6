/**
 * The welcome page (route /welcome, console-spec §2 menu label welcome): every signed-in user's landing page: the
 * greeting with the displayed name (console-spec §3), the enterprise, the notices waiting (the bell's overview) and
 * shortcuts to the screens the user may open.
 */
import { Avatar, Badge, Card, Col, Row, Space, Typography } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { fetchNoticeOverview } from '../../auth/authApi';
import { displayName } from '../../auth/types';
import { useSession } from '../../auth/useSession';
import MenuIcon from '../../components/MenuIcon';
import { menuTitle } from '../../i18n/menuTitle';
import { NOTIFY_LIST_PATH } from '../../router/paths';
import { dayPart, shortcuts } from './model';

export default function WelcomePage() {
  const { t } = useTranslation('home');
  const user = useSession().user;
  const [notices, setNotices] = useState<number | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    void fetchNoticeOverview(controller.signal).then((reply) => {
      if (controller.signal.aborted) return;
      setNotices(reply.code === 0 && Array.isArray(reply.data) ? reply.data.reduce((sum, row) => sum + (Number(row.total) || 0), 0) : null);
    });
    return () => controller.abort();
  }, []);
  const links = useMemo(() => shortcuts(user?.routes), [user?.routes]);
  const name = user ? displayName(user) : '';
  return (
    <div data-testid="welcome-page">
      <Card>
        <Space size="large" align="center" wrap>
          <Avatar size={64} src={user?.avatar || undefined}>{name.slice(0, 1)}</Avatar>
          <div>
            <Typography.Title level={4} style={{ margin: 0 }} data-testid="welcome-greeting">
              {t(`welcome.greeting.${dayPart(new Date().getHours())}`, { name })}
            </Typography.Title>
            <Typography.Text type="secondary" data-testid="welcome-enterprise">{user?.enterpriseName ?? ''}</Typography.Text>
          </div>
          <Link to={NOTIFY_LIST_PATH} data-testid="welcome-notices" data-value={notices ?? ''}>
            <Badge count={notices ?? 0} showZero overflowCount={999}>
              <Typography.Text style={{ paddingRight: 16 }}>{t('welcome.notices')}</Typography.Text>
            </Badge>
          </Link>
        </Space>
      </Card>
      <Card title={t('welcome.shortcuts')} style={{ marginTop: 16 }}>
        <Row gutter={[16, 16]}>
          {links.map((link) => (
            <Col xs={12} sm={8} md={6} lg={4} key={link.path}>
              <Link to={link.path} data-testid={`shortcut-${link.path}`}>
                <Card hoverable size="small" style={{ textAlign: 'center' }}>
                  <div style={{ fontSize: 24 }}><MenuIcon name={link.icon} /></div>
                  {menuTitle(t, link.title)}
                </Card>
              </Link>
            </Col>
          ))}
        </Row>
      </Card>
    </div>
  );
}
