import { Outlet } from 'react-router';

/** Full-screen pages (cockpits): no header, menu or footer. */
export default function BlankLayout() {
  return <Outlet />;
}
