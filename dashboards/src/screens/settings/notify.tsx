import NotifySettingsPanel from '../../features/alarmList/NotifySettingsPanel';

/** Settings → alarm notifications (issue 9 §4): the user's rules per alarm key and the enterprise switches. */
export default function NotifySettingsScreen() {
  return <NotifySettingsPanel />;
}
