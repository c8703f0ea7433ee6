/**
 * The product's home page inside the console (route /home, console-spec §2 menu label home; the footer's home page
 * link): the platform's name and description, the console's version, the entry points the user holds (each top
 * menu section, the cockpits in a new tab) and the project's links.
 */
import { Button, Card, Col, Descriptions, Row, Space, Typography } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { version } from '../../../package.json';
import { useSession } from '../../auth/useSession';
import MenuIcon from '../../components/MenuIcon';
import { FOOTER_LINKS } from '../../config';
import { menuTitle } from '../../i18n/menuTitle';
import { COCKPIT_PATH, NEV1_COCKPIT_PATH, openSameOrigin } from '../../router/paths';
import { routeHeld } from '../../router/routeTable';
import { entryPoints } from './model';

export default function HomePage() {
  const { t } = useTranslation('home');
  const { t: layout } = useTranslation('layout');
  const routes = useSession().user?.routes;
  const entries = useMemo(() => entryPoints(routes), [routes]);
  const cockpits = [[COCKPIT_PATH, 'cockpit.fleet'], [NEV1_COCKPIT_PATH, 'cockpit.nev']].filter(([path]) => routeHeld(routes, path));
  return (
    <div data-testid="home-page">
      <Card>
        <Typography.Title level={3} style={{ marginTop: 0 }} data-testid="home-name">{layout('appName')}</Typography.Title>
        <Typography.Paragraph type="secondary">{layout('appDescription')}</Typography.Paragraph>
        <Descriptions size="small" column={1}>
          <Descriptions.Item label={t('home.version')}><span data-testid="home-version">{version}</span></Descriptions.Item>
        </Descriptions>
        <Space wrap>
          <a href={FOOTER_LINKS.source} target="_blank" rel="noreferrer">{layout('footer.source')}</a>
          <a href={FOOTER_LINKS.apiManual} target="_blank" rel="noreferrer">{layout('footer.apiManual')}</a>
        </Space>
      </Card>
      <Card title={t('home.entries')} style={{ marginTop: 16 }}>
        <Row gutter={[16, 16]}>
          {entries.map((entry) => (
            <Col xs={12} sm={8} md={6} lg={4} key={entry.path}>
              <Link to={entry.path} data-testid={`entry-${entry.path}`}>
                <Card hoverable size="small" style={{ textAlign: 'center' }}>
                  <div style={{ fontSize: 24 }}><MenuIcon name={entry.icon} /></div>
                  {menuTitle(t, entry.title)}
                </Card>
              </Link>
            </Col>
          ))}
        </Row>
        {cockpits.length > 0 && (
          <Space style={{ marginTop: 16 }}>
            {cockpits.map(([path, label]) => <Button key={path} onClick={() => openSameOrigin(path)}>{layout(label)}</Button>)}
          </Space>
        )}
      </Card>
    </div>
  );
}
