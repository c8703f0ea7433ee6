import { ActiveSafetyParamsPanel } from '../../features/command/ActiveSafetyParamsPanel';

/** Settings → terminal parameters → ADAS (platform-spec §2): the terminal's T/JSATL12 0xF364 block. */
export default function TerminalParamsAdasScreen() {
  return <ActiveSafetyParamsPanel kind="adas" />;
}
