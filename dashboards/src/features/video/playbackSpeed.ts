/**
 * A playback speed change (console-spec §9 rates 0.7, 1, 1.5, 2; JT/T 1078 0x9202): the 9202 of the
 * rate (playbackModel.ts `speedControl`), then the terminal's answer read from the command's state.
 * The player takes the new rate only once the terminal accepted it; a refusal or no answer keeps the
 * rate that plays, and the page says why.
 */
import type { CommandTarget } from '../command/api';
import { controlPlayback, fetchVideoCommandState } from './api';
import { speedControl } from './playbackModel';
import { OUTCOME_POLL_MS, refusalOf, type StartRefusal } from './startOutcome';

/** How long the terminal's answer to a 9202 is waited for. */
export const SPEED_ANSWER_MS = 30_000;

export type SpeedAnswer = { ok: true } | { ok: false; refusal: StartRefusal | null };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `refusal` null: the request itself failed (the failure handler already showed the server's message). */
export async function askSpeed(target: CommandTarget, channelId: number, rate: number): Promise<SpeedAnswer> {
  const reply = await controlPlayback(target, { channelId, ...speedControl(rate) });
  if (reply.code !== 0 || !reply.data) return { ok: false, refusal: null };
  const id = reply.data.id;
  if (id === null || id === undefined) return { ok: true };
  for (let waited = 0; waited < SPEED_ANSWER_MS; waited += OUTCOME_POLL_MS) {
    await sleep(OUTCOME_POLL_MS);
    const found = refusalOf(await fetchVideoCommandState(id).catch(() => null));
    if (found === null) return { ok: true };
    if (found) return { ok: false, refusal: found };
  }
  return { ok: false, refusal: 'unanswered' };
}
