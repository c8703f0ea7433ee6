import FenceScreen from '../../features/fence/FenceScreen';

/** Platform-spec §2 settings "fence": features/fence/FenceScreen. */
export default function FenceSettings() {
  return <FenceScreen />;
}
