import RegistrationPolicyPanel from '../../features/fleet/RegistrationPolicyPanel';

/** Settings → terminal registration policy of the caller's enterprise (gateway/README.md). */
export default function RegistrationPolicyScreen() {
  return <RegistrationPolicyPanel />;
}
