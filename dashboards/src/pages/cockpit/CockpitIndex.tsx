import CockpitBoard from '../../features/cockpit/CockpitBoard';

/** Fleet monitoring cockpit (platform-spec §2 cockpitIndex): full screen, opened in a new tab. */
export default function CockpitIndex() {
  return <CockpitBoard variant="fleet" />;
}
