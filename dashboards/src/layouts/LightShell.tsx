/**
 * The signed-in shell's first paint without antd's Menu, Tabs, Dropdown and Tooltip: plain elements styled by
 * layouts.css. Until the opening page's first rows are painted (router/firstContent.ts) BasicLayout shows these
 * in place of the menu, the multi-tab bar and the header's actions; then the full ones replace them. Rendering
 * antd's menu (every item twice: once hidden, to measure), its tabs and their CSS-in-JS was main-thread time
 * before a report's first rows (performance target: a report's first rows <= 1 s, docs/performance.md).
 * The links are real links: a click before the swap navigates as the full menu would.
 */
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import MenuIcon from '../components/MenuIcon';
import { menuTitle } from '../i18n/menuTitle';
import { menuParents, selectedMenuKey, type MenuNode, type PageRoute } from '../router/routeTable';
import { opensTab } from './tabs/rules';
import { useTabs } from './tabs/TabsContext';

interface MenuProps {
  menu: MenuNode[];
  pages: PageRoute[];
  mode: 'inline' | 'horizontal';
  theme: 'dark' | 'light';
  collapsed?: boolean;
}

/** The menu as the full one first shows it: the top entries, the selected page's branch open. */
export function LightMenu({ menu, pages, mode, theme, collapsed }: MenuProps) {
  const { t } = useTranslation('menu');
  const selected = selectedMenuKey(pages, useLocation().pathname);
  const open = new Set(mode === 'inline' && !collapsed ? menuParents(menu, selected) : []);
  const entry = (node: MenuNode, depth: number) => {
    const title = menuTitle(t, node.title);
    const classes = ['light-menu-item', node.key === selected || open.has(node.key) ? 'light-menu-selected' : ''].join(' ');
    const label = (
      <>
        {depth === 0 && <MenuIcon name={node.icon} />}
        {!collapsed && <span className="light-menu-title">{title}</span>}
      </>
    );
    return (
      <li key={node.key}>
        {node.children || node.link || node.target === '_blank' ? (
          <span className={classes} style={{ paddingInlineStart: 24 + depth * 24 }} title={title}>{label}</span>
        ) : (
          <Link className={classes} style={{ paddingInlineStart: 24 + depth * 24 }} to={node.key} title={title}>{label}</Link>
        )}
        {node.children && open.has(node.key) && <ul>{node.children.map((child) => entry(child, depth + 1))}</ul>}
      </li>
    );
  };
  return (
    <nav className={`light-menu light-menu-${theme} light-menu-${mode}`} data-testid="menu-light">
      <ul>{menu.map((node) => entry(node, 0))}</ul>
    </nav>
  );
}

/** The multi-tab bar's titles, the active one marked, before antd's Tabs take over. */
export function LightTabBar() {
  const { t } = useTranslation('menu');
  const { state } = useTabs();
  const active = opensTab(useLocation().pathname) ? state.activeKey : '';
  return (
    <div className="multi-tab multi-tab-light" data-testid="tabs-bar-light">
      {state.tabs.map((tab) => (
        <span key={tab.key} className={`multi-tab-light-tab ${tab.key === active ? 'multi-tab-light-active' : ''}`}>
          {menuTitle(t, tab.title)}
        </span>
      ))}
    </div>
  );
}
