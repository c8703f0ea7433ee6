import { Layout } from 'antd';
import { useTranslation } from 'react-i18next';
import { Outlet } from 'react-router';
import LanguageSwitch from '../components/LanguageSwitch';
import GlobalFooter from './GlobalFooter';
import './layouts.css';

/** The layout of the pages reachable without signing in (login). */
export default function UserLayout() {
  const { t } = useTranslation('layout');
  return (
    <Layout className="user-layout">
      <div className="user-layout-lang">
        <LanguageSwitch />
      </div>
      <Layout.Content className="user-layout-content">
        <div className="user-layout-top">
          <div className="user-layout-title">
            <img src="/favicon.svg" alt="" width={40} height={40} />
            <span>{t('appName')}</span>
          </div>
          <div className="user-layout-desc">{t('appDescription')}</div>
        </div>
        <Outlet />
      </Layout.Content>
      <GlobalFooter />
    </Layout>
  );
}
