import NotifySettingsPanel from '../../features/alarmList/NotifySettingsPanel';

/** Settings → alarm notifications: the user's rule per alarm key, own or inherited (the
 * enterprise switches are `/setting/messageNotifyRule`). */
export default function NotifySettingsScreen() {
  return <NotifySettingsPanel />;
}
