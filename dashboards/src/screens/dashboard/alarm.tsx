import AlarmBoardPage from '../../features/dashboard/alarmBoard/AlarmBoardPage';

/** The alarm dashboard (route /dashboard/alarm, api/routemap.py). */
export default function AlarmDashboardScreen() {
  return <AlarmBoardPage />;
}
