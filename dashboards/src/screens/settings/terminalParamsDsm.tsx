import { ActiveSafetyParamsPanel } from '../../features/command/ActiveSafetyParamsPanel';

/** Settings → terminal parameters → DSM (platform-spec §2): the terminal's T/JSATL12 0xF365 block. */
export default function TerminalParamsDsmScreen() {
  return <ActiveSafetyParamsPanel kind="dsm" />;
}
