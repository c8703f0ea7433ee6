import { MenuFoldOutlined, MenuUnfoldOutlined } from '@ant-design/icons';
import { Layout } from 'antd';
import type { ReactNode } from 'react';
import Logo from './Logo';
import RightContent from './RightContent';
import type { LayoutMode } from './settings/model';

interface Props {
  layout: LayoutMode;
  dark: boolean;
  fixed: boolean;
  isMobile: boolean;
  collapsed: boolean;
  onToggle: () => void;
  /** The horizontal menu of the top layout. */
  topMenu?: ReactNode;
  /** False on the first paint (BasicLayout): the actions' place is kept, antd's tooltips and menus come after. */
  actions?: boolean;
}

/** The header of the basic layout, per navigation mode (side, top, mix) and on mobile widths. */
export default function GlobalHeader({ layout, dark, fixed, isMobile, collapsed, onToggle, topMenu, actions = true }: Props) {
  const showLogo = isMobile || layout !== 'side';
  const showTrigger = isMobile || layout !== 'top';
  const classes = ['global-header', dark && layout !== 'side' && !isMobile ? 'global-header-dark' : '', fixed ? 'global-header-fixed' : '']
    .filter(Boolean)
    .join(' ');
  return (
    <Layout.Header className={classes} data-testid="global-header">
      {showLogo && <Logo collapsed={isMobile} />}
      {showTrigger && (
        <span className="header-trigger" data-testid="menu-toggle" onClick={onToggle}>
          {collapsed || isMobile ? <MenuUnfoldOutlined /> : <MenuFoldOutlined />}
        </span>
      )}
      <div className="global-header-menu">{layout === 'top' && !isMobile ? topMenu : null}</div>
      {actions ? <RightContent /> : <div className="header-right" data-testid="header-right-light" />}
    </Layout.Header>
  );
}
