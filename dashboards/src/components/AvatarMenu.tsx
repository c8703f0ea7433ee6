import { LogoutOutlined, SettingOutlined, UserOutlined } from '@ant-design/icons';
import { App, Avatar, Dropdown, type MenuProps } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { logout } from '../auth/sessionService';
import { displayName } from '../auth/types';
import { useSession } from '../auth/useSession';
import { ACCOUNT_CENTER_PATH, ACCOUNT_SETTINGS_PATH, LOGIN_PATH } from '../router/paths';

/** The user menu: account center, account settings, logout (with the "Information" dialog). */
export default function AvatarMenu() {
  const { t } = useTranslation('layout');
  const { modal } = App.useApp();
  const navigate = useNavigate();
  const { user } = useSession();
  if (!user) return null;

  const confirmLogout = () =>
    modal.confirm({
      title: t('logout.title'),
      content: t('logout.content'),
      okText: t('common:ok'),
      cancelText: t('common:cancel'),
      okButtonProps: { 'data-testid': 'logout-confirm' },
      onOk: () => {
        logout();
        navigate(LOGIN_PATH, { replace: true });
      },
    });

  const items: MenuProps['items'] = [
    { key: 'center', icon: <UserOutlined />, label: <span data-testid="user-menu-center">{t('userMenu.center')}</span> },
    { key: 'settings', icon: <SettingOutlined />, label: <span data-testid="user-menu-settings">{t('userMenu.settings')}</span> },
    { type: 'divider' },
    { key: 'logout', icon: <LogoutOutlined />, label: <span data-testid="logout">{t('userMenu.logout')}</span> },
  ];
  const onClick: MenuProps['onClick'] = ({ key }) => {
    if (key === 'center') navigate(ACCOUNT_CENTER_PATH);
    else if (key === 'settings') navigate(ACCOUNT_SETTINGS_PATH);
    else confirmLogout();
  };

  return (
    <Dropdown menu={{ items, onClick }} placement="bottomRight">
      <span className="header-action" data-testid="user-menu">
        <Avatar size="small" src={user.avatar || undefined} icon={<UserOutlined />} />
        <span className="header-user-name">{displayName(user)}</span>
      </span>
    </Dropdown>
  );
}
