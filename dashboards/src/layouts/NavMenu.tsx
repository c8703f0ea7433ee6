import { Menu, type MenuProps } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import MenuIcon from '../components/MenuIcon';
import { menuParents, selectedMenuKey, type MenuNode, type PageRoute } from '../router/routeTable';
import { menuTitle } from '../i18n/menuTitle';
import { openSameOrigin } from '../router/paths';

type Item = NonNullable<MenuProps['items']>[number];

interface Props {
  menu: MenuNode[];
  pages: PageRoute[];
  mode: 'inline' | 'horizontal';
  theme: 'dark' | 'light';
  collapsed?: boolean;
  onNavigate?: () => void;
}

/** The menu built from the server's route map (already filtered by permission). */
export default function NavMenu({ menu, pages, mode, theme, collapsed, onNavigate }: Props) {
  const { t } = useTranslation('menu');
  const navigate = useNavigate();
  const location = useLocation();
  const selected = selectedMenuKey(pages, location.pathname);
  const [openKeys, setOpenKeys] = useState<string[]>(() => menuParents(menu, selected));

  const toItem = (node: MenuNode): Item => ({
    key: node.key,
    icon: <MenuIcon name={node.icon} />,
    label: menuTitle(t, node.title),
    children: node.children?.map(toItem),
  });

  const byKey = new Map<string, MenuNode>();
  const index = (nodes: MenuNode[]) =>
    nodes.forEach((node) => {
      byKey.set(node.key, node);
      if (node.children) index(node.children);
    });
  index(menu);

  const onClick: MenuProps['onClick'] = ({ key }) => {
    const node = byKey.get(key);
    if (node?.link) window.open(node.link, '_blank', 'noopener');
    else if (node?.target === '_blank') openSameOrigin(key);
    else navigate(key);
    onNavigate?.();
  };

  return (
    <Menu
      data-testid="menu"
      mode={mode}
      theme={theme}
      items={menu.map(toItem)}
      selectedKeys={[selected]}
      {...(mode === 'inline' && !collapsed ? { openKeys, onOpenChange: setOpenKeys } : {})}
      onClick={onClick}
      style={mode === 'horizontal' ? { flex: 1, minWidth: 0, borderBottom: 'none' } : { borderInlineEnd: 'none' }}
    />
  );
}
