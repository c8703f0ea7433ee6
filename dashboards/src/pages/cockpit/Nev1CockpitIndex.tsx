import CockpitBoard from '../../features/cockpit/CockpitBoard';

/** New-energy-vehicle cockpit (platform-spec §2 nev1CockpitIndex): the vehicles of type 2, full screen, in a new tab. */
export default function Nev1CockpitIndex() {
  return <CockpitBoard variant="nev" />;
}
