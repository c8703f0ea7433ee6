import {
  AimOutlined,
  AlertOutlined,
  AppstoreOutlined,
  AuditOutlined,
  BarChartOutlined,
  CarOutlined,
  ClusterOutlined,
  ControlOutlined,
  CreditCardOutlined,
  DashboardOutlined,
  DesktopOutlined,
  EnvironmentOutlined,
  FieldTimeOutlined,
  FileTextOutlined,
  FundProjectionScreenOutlined,
  HddOutlined,
  HistoryOutlined,
  HomeOutlined,
  IdcardOutlined,
  NodeIndexOutlined,
  PauseCircleOutlined,
  PlaySquareOutlined,
  PoweroffOutlined,
  SettingOutlined,
  SmileOutlined,
  TableOutlined,
  TeamOutlined,
  ThunderboltOutlined,
  UnorderedListOutlined,
  UserOutlined,
  VideoCameraOutlined,
  WifiOutlined,
} from '@ant-design/icons';
import type { ComponentType } from 'react';

/**
 * The antd icons a server route map may name. Importing the whole icon set would add megabytes, so
 * an unknown name simply shows no icon; add it here when the route map starts using it.
 */
const ICONS: Record<string, ComponentType> = {
  AimOutlined,
  AlertOutlined,
  AppstoreOutlined,
  AuditOutlined,
  BarChartOutlined,
  CarOutlined,
  ClusterOutlined,
  ControlOutlined,
  CreditCardOutlined,
  DashboardOutlined,
  DesktopOutlined,
  EnvironmentOutlined,
  FieldTimeOutlined,
  FileTextOutlined,
  FundProjectionScreenOutlined,
  HddOutlined,
  HistoryOutlined,
  HomeOutlined,
  IdcardOutlined,
  NodeIndexOutlined,
  PauseCircleOutlined,
  PlaySquareOutlined,
  PoweroffOutlined,
  SettingOutlined,
  SmileOutlined,
  TableOutlined,
  TeamOutlined,
  ThunderboltOutlined,
  UnorderedListOutlined,
  UserOutlined,
  VideoCameraOutlined,
  WifiOutlined,
};

export default function MenuIcon({ name }: { name?: string }) {
  const Icon = name ? ICONS[name] : undefined;
  return Icon ? <Icon /> : null;
}
