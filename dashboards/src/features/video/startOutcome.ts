/**
 * What became of a stream's start (9101 / 9201), pure: the terminal's answer to the command (its
 * 0x0001 general response, in the command's state) and whether media came. A terminal that answers
 * failure or "unsupported", that does not answer, or that accepted and sends nothing within
 * `NO_MEDIA_MS` is a refusal the window shows in words, instead of spinning.
 */
import type { VideoCommandState } from './api';

export type StartRefusal = 'unsupported' | 'failed' | 'messageError' | 'unanswered' | 'noMedia';

/** No picture (or sound) this long after the terminal accepted the start: the window says so, the stream is stopped. */
export const NO_MEDIA_MS = 20_000;
/** How often the command's state is read until the terminal answered. */
export const OUTCOME_POLL_MS = 1000;

/** JT/T 808 general response results (0x0001): 0 success, 1 failure, 2 message error, 3 unsupported. */
const RESULT_REFUSALS: Record<number, StartRefusal> = { 1: 'failed', 2: 'messageError', 3: 'unsupported' };

/** The refusal a command state means; null: the terminal accepted; undefined: no answer yet. */
export function refusalOf(state: Pick<VideoCommandState, 'state' | 'result'> | null): StartRefusal | null | undefined {
  if (!state) return undefined;
  if (state.state === 'answered') return state.result === 0 || state.result === null ? null : RESULT_REFUSALS[state.result] ?? 'failed';
  if (state.state === 'timed_out' || state.state === 'failed') return 'unanswered';
  return undefined;
}

/** Whether a refusal leaves the terminal possibly streaming (then the stream is stopped with 9102). */
export const terminalMayStream = (refusal: StartRefusal) => refusal === 'noMedia';
