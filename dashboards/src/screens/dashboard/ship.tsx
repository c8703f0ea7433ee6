import ShipPage from '../../features/dashboard/ship/ShipPage';

/** The dispatch dashboard (route /dashboard/ship, api/routemap.py). */
export default function ShipDashboardScreen() {
  return <ShipPage />;
}
