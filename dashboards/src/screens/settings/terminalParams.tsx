import { TerminalParamsPanel } from '../../features/command/TerminalParamsPanel';

/** Settings → terminal parameters (issue 8 §4): read and write one terminal's parameters. */
export default function TerminalParamsScreen() {
  return <TerminalParamsPanel />;
}
