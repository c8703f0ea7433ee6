import NotifySwitchesPanel from '../../features/alarmList/NotifySwitchesPanel';

/** Platform-spec §2 settings "messageNotifyRule" (`/setting/messageNotifyRule`): the enterprise-wide
 * notification switches of console-spec §3 (vehicle state change, command answer, uploaded file windows). */
export default function MessageNotifyRuleScreen() {
  return <NotifySwitchesPanel />;
}
