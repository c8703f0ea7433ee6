import { TerminalParamsPanel } from '../../features/command/TerminalParamsPanel';

/** Settings → terminal parameters: read and write one terminal's parameters. */
export default function TerminalParamsScreen() {
  return <TerminalParamsPanel />;
}
